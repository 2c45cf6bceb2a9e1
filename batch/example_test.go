package batch_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/git-durable/git-durable/batch"
)

// Example runs one batch: every file is written under a temporary name,
// committed (synced as the policy's path asks, then renamed to its final
// name), and End makes the whole batch durable. Which path ran (batch, or
// the fsync fallback where the batch scheme is not sound) depends on the
// filesystem; Policy.Stats reports it.
func Example() {
	dir, err := os.MkdirTemp("", "batch-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	p := batch.New(batch.OS, dir, batch.Options{Method: batch.Batch})
	tx := p.Begin()
	// Directories that will receive new names are created through the
	// transaction, so that End can make them durable where needed.
	sub := filepath.Join(dir, "ab")
	if err := tx.Mkdir(sub, 0o777); err != nil {
		fmt.Println(err)
		return
	}
	for i, data := range []string{"first\n", "second\n", "third\n"} {
		f, err := p.FS().Create(filepath.Join(sub, fmt.Sprintf("tmp_%d", i)), 0o444)
		if err != nil {
			fmt.Println(err)
			return
		}
		if _, err := f.Write([]byte(data)); err != nil {
			f.Close()
			fmt.Println(err)
			return
		}
		// Commit closes f; on failure it removes it.
		if err := tx.Commit(f, filepath.Join(sub, fmt.Sprintf("object%d", i))); err != nil {
			fmt.Println(err)
			return
		}
	}
	// End must be called once every Commit has returned, even after a
	// failed one, so that what was published is durable.
	if err := tx.End(); err != nil {
		fmt.Println(err)
		return
	}

	names, err := p.FS().ReadDir(sub)
	if err != nil {
		fmt.Println(err)
		return
	}
	sort.Strings(names)
	fmt.Println(names)
	fmt.Println("method:", p.Stats().Method)
	// Output:
	// [object0 object1 object2]
	// method: batch
}

// ExampleParseMethod parses the names git uses for core.fsyncMethod, plus
// none.
func ExampleParseMethod() {
	for _, name := range []string{"batch", "fsync", "writeout-only", "none", "sometimes"} {
		m, ok := batch.ParseMethod(name)
		fmt.Println(name, m, ok)
	}
	// Output:
	// batch batch true
	// fsync fsync true
	// writeout-only writeout-only true
	// none none true
	// sometimes none false
}
