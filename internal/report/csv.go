package report

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/txnbench/txnbench/internal/metrics"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// IntervalRow is one op's figures in one progress interval: what a
// progress line shows, a row of --csv and an op of a --jsonl line.
// Latencies are in ms; Rate is Count per second of the interval.
type IntervalRow struct {
	Op   string      `json:"op"`
	Kind result.Kind `json:"kind"`
	Rate float64     `json:"rate"`
	metrics.Summary
	Errors  int64 `json:"errors"`
	Retries int64 `json:"retries"`
}

// IntervalRows are the rows of iv, one per op in iv's order.
func IntervalRows(iv result.Interval) []IntervalRow {
	rows := make([]IntervalRow, 0, len(iv.Ops))
	for _, o := range iv.Ops {
		rows = append(rows, IntervalRow{
			Op: o.Name, Kind: result.Kind(kindName(o.Kind)), Rate: float64(o.Count) / max(iv.LengthS, 1e-9),
			Summary: o.Summary, Errors: o.Errors, Retries: o.Retries,
		})
	}
	return rows
}

// intervalCSVHeader names the columns of IntervalsCSV.
var intervalCSVHeader = []string{"time_s", "op", "kind", "count", "rate", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms", "errors", "retries"}

// IntervalsCSV writes a run's progress intervals as CSV: a header, then
// one row per op per interval, time_s being the interval's end in the
// measured window. A latency is empty where the op completed nothing.
func IntervalsCSV(w io.Writer, ivs []result.Interval) error {
	cw := csv.NewWriter(w)
	cw.Write(intervalCSVHeader)
	for _, iv := range ivs {
		for _, r := range IntervalRows(iv) {
			lat := []string{num(r.Mean), num(r.P50), num(r.P90), num(r.P95), num(r.P99), num(r.Max)}
			if r.Count == 0 {
				lat = make([]string, len(lat))
			}
			row := append([]string{num(iv.ElapsedS), r.Op, kindName(r.Kind), strconv.FormatInt(r.Count, 10), num(r.Rate)}, lat...)
			cw.Write(append(row, strconv.FormatInt(r.Errors, 10), strconv.FormatInt(r.Retries, 10)))
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonlInterval is one line of IntervalJSONL.
type jsonlInterval struct {
	TimeS   float64       `json:"time_s"`
	LengthS float64       `json:"length_s"`
	Ops     []IntervalRow `json:"ops"`
}

// IntervalJSONL writes iv as one JSON line (--jsonl): its end in the
// measured window, its length and its rows.
func IntervalJSONL(w io.Writer, iv result.Interval) error {
	b, err := json.Marshal(jsonlInterval{TimeS: iv.ElapsedS, LengthS: iv.LengthS, Ops: IntervalRows(iv)})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// StudyCSV writes a study's cells as CSV (study.csv): a header, then one
// row per op per cell with the cell's label, its value of each varied
// setting, and the op's medians across the cell's repetitions.
func StudyCSV(w io.Writer, s *study.Summary) error {
	cw := csv.NewWriter(w)
	head := []string{"cell"}
	for _, v := range s.Vary {
		head = append(head, v.Key)
	}
	cw.Write(append(head, "op", "kind", "count", "rate", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms", "errors", "spread_pct"))
	for _, c := range s.Cells {
		cell := study.Cell{Settings: c.Settings}
		for _, o := range c.Ops {
			row := []string{c.Label}
			for _, v := range s.Vary {
				val, _ := cell.Value(v.Key)
				row = append(row, val)
			}
			row = append(row, o.Name, kindName(o.Kind), num(o.Count), num(o.OpsPerS),
				num(o.Mean), num(o.P50), num(o.P90), num(o.P95), num(o.P99), num(o.Max), num(o.Errors), num(o.Spread))
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// num is v in the fewest digits that read back as v.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// kindName is k as a column shows it: "txn" for a transaction, whose kind
// a saved result may leave empty.
func kindName(k result.Kind) string {
	if k.IsTxn() {
		return string(result.KindTxn)
	}
	return string(k)
}
