package workload

// Unsplittable is a workload whose check needs the whole run in one
// process (a history of every client's transactions): a split run (--shard)
// is refused, Unsplittable saying why and what to do.
type Unsplittable interface {
	Unsplittable() string
}
