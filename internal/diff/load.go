package diff

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/suite"
)

// Kind is what a diff input holds.
type Kind string

// The kinds of input.
const (
	KindResult Kind = "result"
	KindStudy  Kind = "study"
	KindSuite  Kind = "suite"
)

// Input is one side of a diff: a result, a study or a suite, with every
// result it refers to loaded.
type Input struct {
	Path  string // as given
	Kind  Kind
	Units []Unit
	Files []string // every file read: the document and the results it names
}

// Unit is what diff compares with its namesake on the other side: a run,
// or a study's cell (its repetitions), or a suite's scenario (or one cell of
// a study scenario).
type Unit struct {
	Name    string
	Results []*result.Result // one per repetition
	// Spread is the study's measured spread of each op's mean latency
	// across repetitions (study.OpStats.Spread), in %, by op.
	Spread map[string]float64
	// Failed is why a suite's scenario did not finish ("" when it did).
	Failed string
}

// Load reads a result JSON, a study.json or a suite.json, or a directory
// holding suite.json or study.json, and every result file it refers to.
func Load(path string) (*Input, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	} else if st.IsDir() {
		file = ""
		for _, name := range []string{"suite.json", "study.json"} {
			if _, err := os.Stat(filepath.Join(path, name)); err == nil {
				file = filepath.Join(path, name)
				break
			}
		}
		if file == "" {
			return nil, fmt.Errorf("%s holds neither suite.json nor study.json: give a result JSON, a study or suite directory, or its JSON file", path)
		}
	}
	b, err := result.ReadFile(file)
	if err != nil {
		return nil, err
	}
	in := &Input{Path: path, Files: []string{file}}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s is not JSON written by txnbench: %w", file, err)
	}
	switch head.Format {
	case result.Format:
		r, err := result.Load(file)
		if err != nil {
			return nil, err
		}
		in.Kind = KindResult
		in.Units = []Unit{{Name: r.Workload, Results: []*result.Result{r}}}
	case study.Format:
		in.Kind = KindStudy
		in.Units, err = in.studyUnits(file, b, "")
	case suite.Format:
		in.Kind = KindSuite
		in.Units, err = in.suiteUnits(file, b)
	default:
		return nil, fmt.Errorf("%s is not a txnbench result, study.json or suite.json (format %q)", file, head.Format)
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// studyUnits reads study.json (its bytes b) and its cells' results; prefix
// goes before each cell's label.
func (in *Input) studyUnits(file string, b []byte, prefix string) ([]Unit, error) {
	var s study.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is not a txnbench study: %w", file, err)
	}
	var units []Unit
	for _, c := range s.Cells {
		u := Unit{Name: prefix + c.Label, Spread: map[string]float64{}}
		for _, o := range c.Ops {
			u.Spread[o.Name] = o.Spread
		}
		if len(c.Results) == 0 {
			return nil, fmt.Errorf("%s: cell %s lists no result files", file, c.Label)
		}
		for _, rf := range c.Results {
			r, err := in.load(resolve(filepath.Dir(file), rf))
			if err != nil {
				return nil, fmt.Errorf("%s, cell %s: %w (keep study.json beside its result files)", file, c.Label, err)
			}
			u.Results = append(u.Results, r)
		}
		units = append(units, u)
	}
	return units, nil
}

// suiteUnits reads suite.json (its bytes b) and the results and studies its
// scenarios point at.
func (in *Input) suiteUnits(file string, b []byte) ([]Unit, error) {
	var rep suite.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s is not a txnbench suite report: %w", file, err)
	}
	dir := filepath.Dir(file)
	var units []Unit
	for _, sc := range rep.Scenarios {
		switch {
		case sc.Result != "":
			r, err := in.load(resolve(dir, sc.Result))
			if err != nil {
				return nil, fmt.Errorf("%s, scenario %s: %w (keep suite.json beside its result files)", file, sc.Name, err)
			}
			units = append(units, Unit{Name: sc.Name, Results: []*result.Result{r}, Failed: sc.Error})
		case sc.Study != "":
			sf := resolve(dir, sc.Study)
			if st, err := os.Stat(sf); err == nil && st.IsDir() {
				sf = filepath.Join(sf, "study.json")
			}
			sb, err := result.ReadFile(sf)
			if err != nil {
				return nil, fmt.Errorf("%s, scenario %s: %w (keep suite.json beside its study directories)", file, sc.Name, err)
			}
			in.Files = append(in.Files, sf)
			us, err := in.studyUnits(sf, sb, sc.Name+": ")
			if err != nil {
				return nil, err
			}
			if len(us) == 0 {
				units = append(units, Unit{Name: sc.Name, Failed: cmp.Or(sc.Error, "no cell finished")})
			}
			for _, u := range us {
				u.Failed = sc.Error
				units = append(units, u)
			}
		default:
			units = append(units, Unit{Name: sc.Name, Failed: cmp.Or(sc.Error, "no result recorded")})
		}
	}
	return units, nil
}

// load reads the result at path, keeping its path in in.Files.
func (in *Input) load(path string) (*result.Result, error) {
	in.Files = append(in.Files, path)
	return result.Load(path)
}

// resolve finds a file a study or suite refers to: relative to the
// document's directory, or by its base name beside the document (txnbench
// study records its files relative to where it ran; looking beside
// study.json first keeps a moved or renamed baseline directory from
// reading another run's files), or as written.
func resolve(dir, p string) string {
	cands := []string{filepath.Join(dir, filepath.Base(p)), p}
	if !filepath.IsAbs(p) {
		cands = append([]string{filepath.Join(dir, p)}, cands...)
	}
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return cands[0]
}
