package loose

import "io/fs"

// umask: Windows has none.
func umask() fs.FileMode { return 0 }
