package crashtest

import (
	"fmt"
	"regexp"
	"sync"

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
	if id, ok := seen.get(f, data[:n]); ok {
		return id
	}
	id := decodeID(data[:n], f)
	seen.put(f, data[:n], id)
	return id
}

func decodeID(raw []byte, f object.Format) string {
	t, body, err := loose.Decode(raw)
	if err != nil {
		return fmt.Sprintf("!%d bytes that are no object: %v", len(raw), err)
	}
	id, err := f.Sum(t, body)
	if err != nil {
		return "!" + err.Error()
	}
	return id.String()
}

// seen remembers the verdicts on small file contents across checks: a
// fault sweep checks the same objects in thousands of runs.
var seen = &memo{ids: [3]map[string]string{}}

// memo is a bounded map from file content to objectID's verdict.
type memo struct {
	mu    sync.Mutex
	ids   [3]map[string]string // per format
	bytes int
}

// Bounds of the memo: contents above memoMax are not kept, and the memo
// is emptied when it holds more than memoTotal bytes.
const memoMax, memoTotal = 64 << 10, 32 << 20

func (m *memo) get(f object.Format, raw []byte) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.ids[f][string(raw)]
	return id, ok
}

func (m *memo) put(f object.Format, raw []byte, id string) {
	if len(raw) > memoMax {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bytes+len(raw) > memoTotal || m.ids[f] == nil {
		m.ids, m.bytes = [3]map[string]string{{}, {}, {}}, 0
	}
	m.ids[f][string(raw)] = id
	m.bytes += len(raw) + len(id)
}
