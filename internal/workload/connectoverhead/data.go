package connectoverhead

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// user, order and item are rows of the dataset.
type user struct {
	id                          int64
	email, name, region, status string
	createdAt                   time.Time
}

type order struct {
	id, userID int64
	status     string
	orderedAt  time.Time
	totalCents int64 // the sum of its items' quantity x price
}

type item struct {
	id, orderID                     int64
	productID, quantity, priceCents int64
}

// dataset is one batch of users with all their orders and items.
type dataset struct {
	users  []user
	orders []order
	items  []item
}

// generator makes the dataset from one random stream: the same seed and
// --rows give the same rows, batch after batch.
type generator struct {
	rng                   *rand.Rand
	regions               int
	nextUser, nextOrder   int64
	nextItem              int64
	firstLower, lastLower []string
}

// dataEpoch is the latest timestamp of the dataset, fixed so that the data
// depends on the seed alone.
var dataEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// userHistory is how far back users were created.
const userHistory = 3 * 365 * 24 * time.Hour

var (
	firstNames = []string{"Ada", "Ben", "Chloe", "David", "Emma", "Felix", "Grace", "Hugo", "Iris", "Jonas",
		"Karin", "Liam", "Maya", "Noah", "Olga", "Paul", "Quinn", "Rosa", "Sami", "Tara"}
	lastNames = []string{"Andersen", "Berg", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Hansen", "Ito", "Jansen",
		"Kowalski", "Larsen", "Moreau", "Novak", "Olsen", "Petrov", "Rossi", "Schmidt", "Tanaka", "Weber"}
	domains       = []string{"example.com", "example.org", "example.net", "mail.example"}
	orderStatuses = []string{"delivered", "shipped", "paid", statusCancelled}
)

// newGenerator starts the dataset of rows users from seed.
func newGenerator(seed uint64, rows int) *generator {
	g := &generator{
		rng:      rand.New(rand.NewPCG(seed, 0xc0_0e_4d)),
		regions:  regionCount(rows),
		nextUser: 1, nextOrder: 1, nextItem: 1,
	}
	for _, n := range firstNames {
		g.firstLower = append(g.firstLower, strings.ToLower(n))
	}
	for _, n := range lastNames {
		g.lastLower = append(g.lastLower, strings.ToLower(n))
	}
	return g
}

// next fills b with the next n users, 1 to 9 orders each (5 on average)
// and 1 to 5 items per order (3 on average).
func (g *generator) next(b *dataset, n int) {
	b.users, b.orders, b.items = b.users[:0], b.orders[:0], b.items[:0]
	r := g.rng
	for range n {
		f, l := r.IntN(len(firstNames)), r.IntN(len(lastNames))
		u := user{
			id:        g.nextUser,
			name:      firstNames[f] + " " + lastNames[l],
			region:    regionName(r.IntN(g.regions)),
			createdAt: dataEpoch.Add(-time.Duration(r.Int64N(int64(userHistory/time.Second))) * time.Second),
		}
		u.email = g.firstLower[f] + "." + g.lastLower[l] + strconv.FormatInt(u.id, 10) + "@" + domains[r.IntN(len(domains))]
		switch p := r.IntN(100); {
		case p < 85:
			u.status = "active"
		case p < 95:
			u.status = "inactive"
		default:
			u.status = "suspended"
		}
		g.nextUser++
		b.users = append(b.users, u)
		since := int64(dataEpoch.Sub(u.createdAt) / time.Second)
		for range 1 + r.IntN(9) {
			o := order{
				id:        g.nextOrder,
				userID:    u.id,
				orderedAt: u.createdAt.Add(time.Duration(r.Int64N(since+1)) * time.Second),
			}
			switch p := r.IntN(100); {
			case p < 60:
				o.status = orderStatuses[0]
			case p < 75:
				o.status = orderStatuses[1]
			case p < 90:
				o.status = orderStatuses[2]
			default:
				o.status = orderStatuses[3]
			}
			g.nextOrder++
			for range 1 + r.IntN(5) {
				it := item{
					id:         g.nextItem,
					orderID:    o.id,
					productID:  1 + r.Int64N(1000),
					quantity:   1 + r.Int64N(4),
					priceCents: 199 + r.Int64N(19801),
				}
				g.nextItem++
				o.totalCents += it.quantity * it.priceCents
				b.items = append(b.items, it)
			}
			b.orders = append(b.orders, o)
		}
	}
}

// The arguments of the load statements: typed arrays where the dialect
// has array parameters, otherwise one JSON array of rows. Names, emails,
// regions and statuses are plain ASCII without quotes or backslashes, so
// they need no JSON escaping.

func (b *dataset) userArgs(arrays bool) []any {
	if arrays {
		ids := make([]int64, len(b.users))
		emails := make([]string, len(b.users))
		names := make([]string, len(b.users))
		regions := make([]string, len(b.users))
		statuses := make([]string, len(b.users))
		created := make([]time.Time, len(b.users))
		for i, u := range b.users {
			ids[i], emails[i], names[i], regions[i], statuses[i], created[i] = u.id, u.email, u.name, u.region, u.status, u.createdAt
		}
		return []any{ids, emails, names, regions, statuses, created}
	}
	return jsonRows(b.users, func(j []byte, u user) []byte {
		j = strconv.AppendInt(j, u.id, 10)
		for _, s := range []string{u.email, u.name, u.region, u.status} {
			j = appendQuoted(append(j, ','), s)
		}
		return append(appendTimestamp(append(j, ',', '"'), u.createdAt), '"')
	})
}

func (b *dataset) orderArgs(arrays bool) []any {
	if arrays {
		ids := make([]int64, len(b.orders))
		users := make([]int64, len(b.orders))
		statuses := make([]string, len(b.orders))
		ordered := make([]time.Time, len(b.orders))
		totals := make([]int64, len(b.orders))
		for i, o := range b.orders {
			ids[i], users[i], statuses[i], ordered[i], totals[i] = o.id, o.userID, o.status, o.orderedAt, o.totalCents
		}
		return []any{ids, users, statuses, ordered, totals}
	}
	return jsonRows(b.orders, func(j []byte, o order) []byte {
		j = strconv.AppendInt(j, o.id, 10)
		j = strconv.AppendInt(append(j, ','), o.userID, 10)
		j = appendQuoted(append(j, ','), o.status)
		j = append(appendTimestamp(append(j, ',', '"'), o.orderedAt), '"')
		return strconv.AppendInt(append(j, ','), o.totalCents, 10)
	})
}

func (b *dataset) itemArgs(arrays bool) []any {
	if arrays {
		cols := [5][]int64{}
		for c := range cols {
			cols[c] = make([]int64, len(b.items))
		}
		for i, it := range b.items {
			cols[0][i], cols[1][i], cols[2][i], cols[3][i], cols[4][i] = it.id, it.orderID, it.productID, it.quantity, it.priceCents
		}
		return []any{cols[0], cols[1], cols[2], cols[3], cols[4]}
	}
	return jsonRows(b.items, func(j []byte, it item) []byte {
		for c, v := range [5]int64{it.id, it.orderID, it.productID, it.quantity, it.priceCents} {
			if c > 0 {
				j = append(j, ',')
			}
			j = strconv.AppendInt(j, v, 10)
		}
		return j
	})
}

// jsonRows is the one argument of a load statement without array
// parameters: a JSON array with one array per row, whose fields row
// appends.
func jsonRows[T any](rows []T, row func(j []byte, r T) []byte) []any {
	j := []byte{'['}
	for i, r := range rows {
		if i > 0 {
			j = append(j, ',')
		}
		j = append(row(append(j, '['), r), ']')
	}
	return []any{string(append(j, ']'))}
}

// appendQuoted appends s as a JSON string; s needs no escaping (see above).
func appendQuoted(j []byte, s string) []byte {
	return append(append(append(j, '"'), s...), '"')
}

// timestampLayout is how timestamps are stored as text (SQLite), the
// spelling of the dialect's own now().
const timestampLayout = "2006-01-02T15:04:05.000Z"

func appendTimestamp(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, timestampLayout)
}
