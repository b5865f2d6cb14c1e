package connectoverhead

import (
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

// expected is the dataset regenerated in Go, and the answers the queries
// must give on it.
type expected struct {
	users  []user              // users[id-1]
	top    map[string][]topRow // region -> what the complex query returns
	totals totals
}

// generate builds the dataset Init loads for seed and rows, in batches as
// Init does.
func generate(seed uint64, rows int) expected {
	g := newGenerator(seed, rows)
	var e expected
	var all dataset
	var b dataset
	for done := 0; done < rows; done += loadBatch {
		g.next(&b, min(loadBatch, rows-done))
		all.users = append(all.users, b.users...)
		all.orders = append(all.orders, b.orders...)
		all.items = append(all.items, b.items...)
	}
	e.users = all.users
	e.totals.users = int64(len(all.users))
	e.totals.orders = int64(len(all.orders))
	e.totals.items = int64(len(all.items))
	byUser := map[int64]*topRow{}
	live := map[int64]bool{} // orders that bring revenue
	for _, o := range all.orders {
		e.totals.orderCents += o.totalCents
		live[o.id] = o.status != statusCancelled
	}
	orderUser := map[int64]int64{}
	for _, o := range all.orders {
		orderUser[o.id] = o.userID
	}
	seenOrder := map[int64]bool{}
	for _, it := range all.items {
		e.totals.itemsCents += it.quantity * it.priceCents
		if !live[it.orderID] {
			continue
		}
		uid := orderUser[it.orderID]
		r := byUser[uid]
		if r == nil {
			r = &topRow{userID: uid, name: all.users[uid-1].name}
			byUser[uid] = r
		}
		if !seenOrder[it.orderID] {
			seenOrder[it.orderID] = true
			r.orders++
		}
		r.items += it.quantity
		r.cents += it.quantity * it.priceCents
	}
	e.top = map[string][]topRow{}
	for uid, r := range byUser {
		region := all.users[uid-1].region
		e.top[region] = append(e.top[region], *r)
	}
	for region, rs := range e.top {
		slices.SortFunc(rs, func(a, b topRow) int {
			return cmp.Or(cmp.Compare(b.cents, a.cents), cmp.Compare(a.userID, b.userID))
		})
		e.top[region] = rs[:min(len(rs), complexLimit)]
	}
	return e
}

func TestGeneratorDeterministic(t *testing.T) {
	a, b, c := generate(7, 1500), generate(7, 1500), generate(8, 1500)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different data")
	}
	if a.totals == c.totals {
		t.Error("different seeds gave the same totals")
	}
}

func TestGeneratorShape(t *testing.T) {
	const rows = 3000
	e := generate(1, rows)
	tt := e.totals
	if tt.users != rows {
		t.Fatalf("%d users, want %d", tt.users, rows)
	}
	if perUser := float64(tt.orders) / rows; perUser < 4.7 || perUser > 5.3 {
		t.Errorf("%.2f orders per user, want about 5", perUser)
	}
	if perOrder := float64(tt.items) / float64(tt.orders); perOrder < 2.85 || perOrder > 3.15 {
		t.Errorf("%.2f items per order, want about 3", perOrder)
	}
	if tt.orderCents != tt.itemsCents {
		t.Errorf("orders total %d cents, items %d", tt.orderCents, tt.itemsCents)
	}
	emails := map[string]bool{}
	regions := map[string]int{}
	for i, u := range e.users {
		if u.id != int64(i+1) {
			t.Fatalf("user %d has id %d", i+1, u.id)
		}
		if emails[u.email] {
			t.Errorf("email %s twice", u.email)
		}
		emails[u.email] = true
		regions[u.region]++
		if u.createdAt.After(dataEpoch) || u.createdAt.Before(dataEpoch.Add(-userHistory)) {
			t.Errorf("user %d created at %v", u.id, u.createdAt)
		}
	}
	if len(regions) != rows/usersPerRegion {
		t.Errorf("%d regions, want %d", len(regions), rows/usersPerRegion)
	}
	if len(e.top["region-1"]) != complexLimit {
		t.Errorf("region-1 has %d top users, want %d", len(e.top["region-1"]), complexLimit)
	}
}

func TestLoadArgsJSON(t *testing.T) {
	g := newGenerator(3, 20)
	var b dataset
	g.next(&b, 20)
	var users [][]any
	if err := json.Unmarshal([]byte(b.userArgs(false)[0].(string)), &users); err != nil {
		t.Fatal(err)
	}
	if len(users) != 20 || users[4][0] != float64(5) || users[4][1] != b.users[4].email {
		t.Errorf("users JSON: %v", users[4])
	}
	ts, err := time.Parse(time.RFC3339Nano, users[4][5].(string))
	if err != nil || !ts.Equal(b.users[4].createdAt) {
		t.Errorf("created_at %v (%v), want %v", users[4][5], err, b.users[4].createdAt)
	}
	var orders, items [][]any
	if err := json.Unmarshal([]byte(b.orderArgs(false)[0].(string)), &orders); err != nil || len(orders) != len(b.orders) {
		t.Fatalf("orders JSON: %d rows, %v", len(orders), err)
	}
	if err := json.Unmarshal([]byte(b.itemArgs(false)[0].(string)), &items); err != nil || len(items) != len(b.items) {
		t.Fatalf("items JSON: %d rows, %v", len(items), err)
	}
	if args := b.itemArgs(true); len(args) != 5 || len(args[0].([]int64)) != len(b.items) {
		t.Errorf("item arrays: %d args", len(args))
	}
}
