package upstream

import "github.com/git-durable/git-durable/object"

const oid1 = "1111111111111111111111111111111111111111"

// refList is a RefSink that lists what it is given, and keeps the object
// format it was told of.
type refList struct {
	got    []string
	format object.Format
}

func (l *refList) Format(f object.Format) { l.format = f }

func (l *refList) Symref(name, target string) { l.got = append(l.got, "@"+target+" "+name) }

func (l *refList) Ref(name []byte, id object.ID) error {
	l.got = append(l.got, id.String()+" "+string(name))
	return nil
}
