package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/txnbench/txnbench/internal/result"
	"gopkg.in/yaml.v3"
)

// File is a parsed and checked suite file: named scenarios, each a run or
// a study of one workload, tagged with the tiers it belongs to.
type File struct {
	Path        string // as given
	Name        string
	Description string
	Entries     []Entry
}

// Entry is one scenario of a suite file, resolved: Args are the flags
// of "txnbench run WORKLOAD" (or study) it runs with, the suite's
// defaults merged in.
type Entry struct {
	Name        string
	Description string
	Workload    string
	Tiers       []string
	// Args are "--key=value" flags, sorted by key; a list repeats its flag.
	Args []string
	// Vary makes the scenario a study: each entry is one --vary, in the
	// order of the file. Repeat is the study's --repeat (1 when not given).
	Vary   []VaryKey
	Repeat int
	// Tier is the tier Select chose the scenario for ("" when not
	// selected).
	Tier string
}

// VaryKey is one varied setting of a study scenario and its values.
type VaryKey struct {
	Key    string
	Values []string
}

// Kind is KindStudy when the scenario varies something, else KindRun.
func (s Entry) Kind() string {
	if len(s.Vary) > 0 {
		return KindStudy
	}
	return KindRun
}

// VaryArgs are the scenario's variations as study flags:
// "--vary=clients=4,8,16".
func (s Entry) VaryArgs() []string {
	var out []string
	for _, v := range s.Vary {
		out = append(out, "--vary="+v.Key+"="+strings.Join(v.Values, ","))
	}
	return out
}

// InTier reports whether the scenario is tagged with tier.
func (s Entry) InTier(tier string) bool { return slices.Contains(s.Tiers, tier) }

// Tiers lists the tiers of the file's scenarios, in order of first use.
func (f *File) Tiers() []string {
	var out []string
	for _, s := range f.Entries {
		for _, t := range s.Tiers {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Tier returns the scenarios tagged with tier, in file order; an error
// lists the tiers the file has when none is.
func (f *File) Tier(tier string) ([]Entry, error) {
	var out []Entry
	for _, s := range f.Entries {
		if s.InTier(tier) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no scenario is in tier %q: choose one of %s", f.Path, tier, strings.Join(f.Tiers(), ", "))
	}
	return out, nil
}

// AllTiers selects every tier of a file (see Select).
const AllTiers = "all"

// Select returns the scenarios of the tiers in spec, a comma-separated
// list ("smoke,nightly") or AllTiers, tier by tier in the order given and
// each tier's in file order; a scenario in several of them runs once,
// under the first (its Tier). It also returns the tiers chosen; an error
// names a tier the file lacks and lists those it has.
func (f *File) Select(spec string) ([]Entry, []string, error) {
	var tiers []string
	if strings.TrimSpace(spec) == AllTiers {
		tiers = f.Tiers()
	} else {
		for _, t := range strings.Split(spec, ",") {
			if t = strings.TrimSpace(t); t == "" {
				return nil, nil, fmt.Errorf("--tier %q: an empty tier in the list: give tiers separated by commas, or %s", spec, AllTiers)
			}
			if !slices.Contains(tiers, t) {
				tiers = append(tiers, t)
			}
		}
	}
	var out []Entry
	seen := map[string]bool{}
	for _, t := range tiers {
		es, err := f.Tier(t)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range es {
			if !seen[e.Name] {
				seen[e.Name] = true
				e.Tier = t
				out = append(out, e)
			}
		}
	}
	return out, tiers, nil
}

// Outputs are flags a suite file may not set: suite run decides where
// every scenario's output goes. Study and suite keys the file has its own
// place for are refused too.
var refused = map[string]string{
	"json":        "suite run writes each scenario's result into --out",
	"out":         "suite run writes each scenario's files into --out",
	"html":        "suite run decides the outputs; give --html to suite run",
	"cpu-profile": "suite run decides the outputs",
	"help":        "not a setting",
	"vary":        "put the varied settings in the scenario's vary table",
	"repeat":      "set repeat on the scenario itself",
	"reinit":      "suite run always starts each scenario on a fresh schema",
}

// Load reads and checks a suite file; see Parse.
func Load(path string, check func(Entry) error) (*File, error) {
	b, err := result.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("suite file: %w", err)
	}
	return Parse(path, b, check)
}

// Parse reads a suite file in TOML (.toml) or YAML (.yaml, .yml), chosen
// by path's extension, and checks everything that can be checked before
// running: syntax, unknown keys, required keys, duplicate names, refused
// flags, then check (when not nil) on every scenario, which checks its
// workload, flags and values. Errors are one line that starts with path
// (and the line, when the parser gives it).
func Parse(path string, data []byte, check func(Entry) error) (*File, error) {
	var raw rawFile
	var varyOrder [][]string // per scenario, the vary keys in file order
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".toml":
		md, err := toml.Decode(string(data), &raw)
		if err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, oneLine(pe.Message))
			}
			return nil, fmt.Errorf("%s: %s", path, oneLine(strings.TrimPrefix(err.Error(), "toml: ")))
		}
		if u := md.Undecoded(); len(u) > 0 {
			if k := u[0]; len(k) > 2 && k[0] == "defaults" || len(k) > 3 && k[0] == "scenario" && (k[1] == "flags" || k[1] == "vary") {
				return nil, fmt.Errorf("%s: %s: a table is not a value: give a string, number, boolean or list", path, k[:len(k)-1].String())
			}
			return nil, fmt.Errorf("%s: unknown key %q: the keys are name, description, defaults and scenario (name, description, workload, tiers, flags, vary, repeat)", path, u[0].String())
		}
		for _, k := range md.Keys() {
			switch {
			case len(k) == 1 && k[0] == "scenario":
				varyOrder = append(varyOrder, nil)
			case len(k) == 3 && k[0] == "scenario" && k[1] == "vary" && len(varyOrder) > 0:
				varyOrder[len(varyOrder)-1] = append(varyOrder[len(varyOrder)-1], k[2])
			}
		}
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		var root yaml.Node
		if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
			return nil, yamlError(path, err)
		}
		if root.Kind != 0 {
			dec := yaml.NewDecoder(bytes.NewReader(data))
			dec.KnownFields(true)
			if err := dec.Decode(&raw); err != nil {
				return nil, yamlError(path, err)
			}
			varyOrder = yamlVaryOrder(&root)
		}
	default:
		return nil, fmt.Errorf("%s: unknown suite file type %q: name it .toml, .yaml or .yml", path, ext)
	}
	f := &File{Path: path, Name: strings.TrimSpace(raw.Name), Description: raw.Description}
	if f.Name == "" {
		return nil, fmt.Errorf("%s: the suite has no name: add name = \"...\" at the top", path)
	}
	if !safeName.MatchString(f.Name) {
		return nil, fmt.Errorf("%s: suite name %q: use letters, digits, '.', '_' and '-' only (it names the output directory)", path, f.Name)
	}
	if len(raw.Scenarios) == 0 {
		return nil, fmt.Errorf("%s: no scenarios: add at least one [[scenario]] with name, workload and tiers", path)
	}
	for k := range raw.Defaults {
		if why, bad := refused[k]; bad {
			return nil, fmt.Errorf("%s: defaults: %s cannot be set in a suite file: %s", path, k, why)
		}
	}
	seen := map[string]int{}
	for i, rs := range raw.Scenarios {
		var order []string
		if i < len(varyOrder) {
			order = varyOrder[i]
		}
		s, err := resolve(rs, raw.Defaults, order)
		where := fmt.Sprintf("scenario %d", i+1)
		if rs.Name != "" {
			where = fmt.Sprintf("scenario %q", rs.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, where, err)
		}
		if j, dup := seen[s.Name]; dup {
			return nil, fmt.Errorf("%s: scenario %q: the name is already used by scenario %d: give each scenario its own name", path, s.Name, j+1)
		}
		seen[s.Name] = i
		if check != nil {
			if err := check(s); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, where, err)
			}
		}
		f.Entries = append(f.Entries, s)
	}
	return f, nil
}

// rawFile is the schema both formats decode into.
type rawFile struct {
	Name        string         `toml:"name" yaml:"name"`
	Description string         `toml:"description" yaml:"description"`
	Defaults    map[string]any `toml:"defaults" yaml:"defaults"`
	Scenarios   []rawScenario  `toml:"scenario" yaml:"scenario"`
}

type rawScenario struct {
	Name        string           `toml:"name" yaml:"name"`
	Description string           `toml:"description" yaml:"description"`
	Workload    string           `toml:"workload" yaml:"workload"`
	Tiers       []string         `toml:"tiers" yaml:"tiers"`
	Flags       map[string]any   `toml:"flags" yaml:"flags"`
	Vary        map[string][]any `toml:"vary" yaml:"vary"`
	Repeat      int              `toml:"repeat" yaml:"repeat"`
}

// safeName is what scenario, suite and tier names may hold: they name
// files and directories.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// reserved are scenario names that would clash with the suite's own files.
var reserved = map[string]bool{"suite": true, "suite.md": true, "suite.json": true}

func resolve(rs rawScenario, defaults map[string]any, order []string) (Entry, error) {
	s := Entry{Name: strings.TrimSpace(rs.Name), Description: rs.Description, Workload: strings.TrimSpace(rs.Workload), Repeat: rs.Repeat}
	switch {
	case s.Name == "":
		return s, errors.New("no name: add name = \"...\"")
	case !safeName.MatchString(s.Name) || reserved[s.Name]:
		return s, fmt.Errorf("name %q: use letters, digits, '.', '_' and '-' only, and not \"suite\" (it names the scenario's files)", s.Name)
	case s.Workload == "":
		return s, errors.New("no workload: add workload = \"train-events\" (or another workload of txnbench run)")
	case len(rs.Tiers) == 0:
		return s, errors.New("no tiers: add tiers = [\"smoke\", ...]")
	}
	var err error
	if s.Tiers, err = resolveTiers(rs.Tiers); err != nil {
		return s, err
	}
	if s.Args, err = resolveFlags(rs, defaults); err != nil {
		return s, err
	}
	if s.Vary, err = resolveVary(rs.Vary, order); err != nil {
		return s, err
	}
	switch {
	case s.Repeat < 0:
		return s, fmt.Errorf("repeat %d: give 1 or more", s.Repeat)
	case s.Repeat > 1 && len(s.Vary) == 0:
		return s, fmt.Errorf("repeat %d without vary: repeat applies to studies; add a vary table or drop repeat", s.Repeat)
	case s.Repeat == 0:
		s.Repeat = 1
	}
	return s, nil
}

// resolveTiers are a scenario's tiers, each once, in the file's order.
func resolveTiers(raw []string) ([]string, error) {
	var tiers []string
	for _, t := range raw {
		t = strings.TrimSpace(t)
		if !safeName.MatchString(t) {
			return nil, fmt.Errorf("tier %q: use letters, digits, '.', '_' and '-' only (it names the output directory)", t)
		}
		if t == AllTiers {
			return nil, fmt.Errorf("tier %q is reserved (suite run --tier %s runs every tier): name the tier otherwise", t, AllTiers)
		}
		if !slices.Contains(tiers, t) {
			tiers = append(tiers, t)
		}
	}
	return tiers, nil
}

// resolveFlags are a scenario's flags as arguments (--key=value),
// sorted by key: its own over the suite's defaults, key by key.
func resolveFlags(rs rawScenario, defaults map[string]any) ([]string, error) {
	var args []string
	for k := range rs.Flags {
		if why, bad := refused[k]; bad {
			return nil, fmt.Errorf("%s cannot be set in a suite file: %s", k, why)
		}
		if _, varied := rs.Vary[k]; varied {
			return nil, fmt.Errorf("%s is both in flags and vary: keep it in one", k)
		}
	}
	// The scenario's flags replace the defaults key by key (a list
	// replaces the default list); a varied key drops its default.
	merged := map[string]any{}
	for k, v := range defaults {
		if _, varied := rs.Vary[k]; !varied {
			merged[k] = v
		}
	}
	for k, v := range rs.Flags {
		merged[k] = v
	}
	keys := slices.Sorted(maps.Keys(merged))
	for _, k := range keys {
		if err := flagName(k); err != nil {
			return nil, err
		}
		vals, err := values(merged[k], true)
		if err != nil {
			return nil, fmt.Errorf("flag %s: %w", k, err)
		}
		for _, v := range vals {
			args = append(args, "--"+k+"="+v)
		}
	}
	return args, nil
}

// resolveVary are a scenario's varied flags and their values.
func resolveVary(vary map[string][]any, order []string) ([]VaryKey, error) {
	var out []VaryKey
	// Vary keys in file order (TOML's key order or YAML's node order);
	// any the order missed follow sorted, so nothing is lost.
	var vkeys []string
	for _, k := range order {
		if _, ok := vary[k]; ok && !slices.Contains(vkeys, k) {
			vkeys = append(vkeys, k)
		}
	}
	var rest []string
	for k := range vary {
		if !slices.Contains(vkeys, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range append(vkeys, rest...) {
		if err := flagName(k); err != nil {
			return nil, err
		}
		if why, bad := refused[k]; bad {
			return nil, fmt.Errorf("vary %s: it cannot be varied: %s", k, why)
		}
		if len(vary[k]) == 0 {
			return nil, fmt.Errorf("vary %s: no values: give a list, e.g. %s = [4, 8, 16]", k, k)
		}
		var vals []string
		for _, v := range vary[k] {
			one, err := values(v, false)
			if err != nil {
				return nil, fmt.Errorf("vary %s: %w", k, err)
			}
			if strings.Contains(one[0], ",") || strings.TrimSpace(one[0]) == "" {
				return nil, fmt.Errorf("vary %s: value %q: a varied value may not be empty or hold a comma", k, one[0])
			}
			vals = append(vals, one[0])
		}
		out = append(out, VaryKey{Key: k, Values: vals})
	}
	return out, nil
}

func flagName(k string) error {
	if strings.HasPrefix(k, "-") || strings.TrimSpace(k) == "" || strings.ContainsAny(k, "= \t") {
		return fmt.Errorf("flag name %q: write flags without dashes, e.g. clients = 8", k)
	}
	return nil
}

// values renders a flag's value as command-line text: a list gives one
// value per repetition of the flag (when list is true).
func values(v any, list bool) ([]string, error) {
	switch x := v.(type) {
	case string:
		return []string{x}, nil
	case bool:
		return []string{strconv.FormatBool(x)}, nil
	case int:
		return []string{strconv.Itoa(x)}, nil
	case int64:
		return []string{strconv.FormatInt(x, 10)}, nil
	case uint64:
		return []string{strconv.FormatUint(x, 10)}, nil
	case float64:
		return []string{strconv.FormatFloat(x, 'g', -1, 64)}, nil
	case []any:
		if !list {
			return nil, errors.New("a value is a list: give plain values")
		}
		var out []string
		for _, e := range x {
			one, err := values(e, false)
			if err != nil {
				return nil, err
			}
			out = append(out, one...)
		}
		if len(out) == 0 {
			return nil, errors.New("an empty list: give values or drop the key")
		}
		return out, nil
	case nil:
		return nil, errors.New("no value")
	}
	return nil, fmt.Errorf("%v (%T): give a string, number or boolean (durations as strings, e.g. \"10s\")", v, v)
}

// yamlVaryOrder reads the order of each scenario's vary keys from the
// document's nodes (a map loses it).
func yamlVaryOrder(root *yaml.Node) [][]string {
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	scen := mapValue(doc, "scenario")
	if scen == nil || scen.Kind != yaml.SequenceNode {
		return nil
	}
	var out [][]string
	for _, sc := range scen.Content {
		var keys []string
		if v := mapValue(sc, "vary"); v != nil && v.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(v.Content); i += 2 {
				keys = append(keys, v.Content[i].Value)
			}
		}
		out = append(out, keys)
	}
	return out
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// yamlLine finds "line N: " in a yaml error.
var yamlLine = regexp.MustCompile(`line (\d+): `)

func yamlError(path string, err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil && m[0] == 0 {
		line := msg[m[2]:m[3]]
		msg = msg[m[1]:]
		if strings.Contains(msg, "not found in type") {
			field, _, _ := strings.Cut(strings.TrimPrefix(msg, "field "), " ")
			msg = fmt.Sprintf("unknown key %q: the keys are name, description, defaults and scenario (name, description, workload, tiers, flags, vary, repeat)", field)
		}
		return fmt.Errorf("%s:%s: %s", path, line, oneLine(msg))
	}
	return fmt.Errorf("%s: %s", path, oneLine(msg))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
