package crash

import (
	"fmt"
	"regexp"

	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// objectName matches the final name of a loose object.
var objectName = regexp.MustCompile(`/objects/[0-9a-f]{2}/([0-9a-f]{38}|[0-9a-f]{62})$`)

// IsObject reports whether path is the final name of a loose object.
func IsObject(path string) bool { return objectName.MatchString(path) }

// formatOf returns the object format of a hexadecimal id.
func formatOf(hex string) object.Format {
	if len(hex) == 64 {
		return object.SHA256
	}
	return object.SHA1
}

// objectID inflates the first n bytes of data as a loose object and
// returns the id it hashes to in format f, or "!" and why it is no object.
func objectID(data []byte, n int64, f object.Format) string {
	if n > int64(len(data)) {
		return fmt.Sprintf("!%d bytes durable, but only %d are known", n, len(data))
	}
	t, body, err := loose.Decode(data[:n])
	if err != nil {
		return fmt.Sprintf("!%d bytes that are no object: %v", n, err)
	}
	id, err := f.Sum(t, body)
	if err != nil {
		return "!" + err.Error()
	}
	return id.String()
}
