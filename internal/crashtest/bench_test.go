package crashtest

import (
	"fmt"
	"testing"
)

// BenchmarkCheckBatch checks a batch trace of 20,000 objects under M_J:
// the cost per object must not grow with the number of objects (run with
// -benchtime=1x at two sizes to compare).
func BenchmarkCheckBatch(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		tr := objects(n, "wo", "rename")
		tr.add(Event{Op: Flush, Path: tr.expect[n-1]})
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				rep, err := Check(tr.evs, Options{Expect: tr.expect})
				if err != nil || !rep.Durable() {
					b.Fatal(err, rep.Err())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
	}
}
