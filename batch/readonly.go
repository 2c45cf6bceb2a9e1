package batch

// The file attributes a rename onto a read-only file looks at (Windows'
// FILE_ATTRIBUTE_READONLY and FILE_ATTRIBUTE_DIRECTORY).
const (
	attrReadOnly  = 0x1
	attrDirectory = 0x10
)

// renameOverReadOnly is a rename that may replace a read-only file, as
// Git for Windows' rename does: MoveFileEx refuses to replace a read-only
// target (access denied), and object files are created read-only, so the
// repair of a broken object would fail. When rename is denied and the
// target is a read-only file, the attribute is cleared and the rename
// tried once more; if that fails too, the attribute is put back. denied
// tells an access-denied error; attrs and setAttrs read and write the
// target's attributes.
func renameOverReadOnly(rename func() error, denied func(error) bool, attrs func() (uint32, error), setAttrs func(uint32) error) error {
	err := rename()
	if err == nil || !denied(err) {
		return err
	}
	a, aerr := attrs()
	if aerr != nil || a&attrReadOnly == 0 || a&attrDirectory != 0 {
		return err
	}
	if setAttrs(a&^attrReadOnly) != nil {
		return err
	}
	if err = rename(); err != nil {
		setAttrs(a)
	}
	return err
}
