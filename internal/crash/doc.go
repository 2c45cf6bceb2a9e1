// Package crash proves durability claims about traces of file operations:
// the calls a run made (recorded in memory by memfs, or by strace from the
// real binary), the order they must come in (I-order), and the crash states
// a journaled filesystem may leave (the model M_J of
// ../shared/reference/crash-model.md), in each of which every object under
// its final name must be complete (I-b), and after a successful return
// every reported object must be there (I-a).
package crash
