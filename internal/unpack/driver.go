package unpack

import (
	"sync"
	"sync/atomic"
)

// driver connects the reader to the workers. The reader gathers jobs and
// the driver sends them out in batches, within a memory budget, to a fixed
// set of worker goroutines, and knows when every job sent is done. Its
// state is its own: the gathered batch belongs to the reader's goroutine
// alone; the queue, the budget and the count of jobs not finished are safe
// for every goroutine. It knows nothing of what a job is for.
type driver struct {
	jobs     chan []*job
	gathered []*job // jobs gathered by the reader, not yet sent
	bytes    int64  // data held by gathered
	budget   *budget
	wg       sync.WaitGroup // jobs sent and not finished
	idlers   atomic.Int32   // workers waiting for a job
	drained  atomic.Bool    // the stream is read: what is left is the workers'
}

// Jobs go to the workers in batches, to wake them (and switch goroutines)
// once per batch rather than once per object.
const (
	batchJobs  = 32
	batchBytes = 1 << 20
)

// newDriver makes a driver for n workers: a queue of n batches, and a
// budget of 4 MiB of entry data for each.
func newDriver(n int) *driver {
	return &driver{jobs: make(chan []*job, n), budget: newBudget(4 << 20 * int64(n))}
}

// start runs n workers; each asks newWorker once for what resolves a job
// (with state of its own, such as a hasher) and runs it on every job it
// takes, until stop.
func (d *driver) start(n int, newWorker func() func(*job)) {
	for w := 0; w < n; w++ {
		resolve := newWorker()
		go func() {
			for {
				d.idlers.Add(1)
				b, ok := <-d.jobs
				d.idlers.Add(-1)
				if !ok {
					return
				}
				for _, j := range b {
					size := int64(len(j.data)) // j may be parked, and its data dropped
					resolve(j)
					d.budget.release(size)
					d.wg.Done()
				}
			}
		}()
	}
}

// gather adds a job to the reader's batch, sending the batch when it is
// full; it waits while the budget cannot take the job's data. Only the
// reader's goroutine gathers.
func (d *driver) gather(j *job) {
	n := int64(len(j.data))
	if !d.budget.tryAcquire(n) {
		d.dispatch() // what waits in the batch must be able to finish
		d.budget.acquire(n)
	}
	d.gathered = append(d.gathered, j)
	d.bytes += n
	if len(d.gathered) >= batchJobs || d.bytes >= batchBytes {
		d.dispatch()
	}
}

// dispatch sends the gathered jobs to the workers.
func (d *driver) dispatch() {
	if len(d.gathered) == 0 {
		return
	}
	d.wg.Add(len(d.gathered))
	d.jobs <- d.gathered
	d.gathered, d.bytes = make([]*job, 0, batchJobs), 0
}

// holding says whether the reader has gathered jobs not yet sent.
func (d *driver) holding() bool { return len(d.gathered) > 0 }

// send queues one job on its own, waiting for room in the queue.
func (d *driver) send(j *job) {
	d.wg.Add(1)
	d.jobs <- []*job{j}
}

// trySend queues one job on its own if the queue has room and the budget
// takes the job's data, and says whether it did.
func (d *driver) trySend(j *job) bool {
	n := int64(len(j.data))
	if n > 0 && !d.budget.tryAcquire(n) {
		return false
	}
	d.wg.Add(1)
	select {
	case d.jobs <- []*job{j}:
		return true
	default:
		d.wg.Done()
		if n > 0 {
			d.budget.release(n)
		}
		return false
	}
}

// drain says that the stream is read to its end.
func (d *driver) drain() { d.drained.Store(true) }

// idle says whether, the reader's work sent, a worker waits for a job
// that the queue does not hold: a job sent now is taken at once by a
// worker that would have nothing more to do. While the reader still reads,
// a waiting worker soon has its next job, and waking it for a job handed
// on would take a core from the reader.
func (d *driver) idle() bool {
	return d.drained.Load() && d.idlers.Load() > 0 && len(d.jobs) == 0
}

// wait returns once every job sent is done.
func (d *driver) wait() { d.wg.Wait() }

// stop ends the workers, once no job is sent again.
func (d *driver) stop() { close(d.jobs) }
