package expr

type fn uint8

const (
	fAdd fn = iota
	fSub
	fMul
	fDiv
	fMod
	fLT
	fLE
	fEQ
	fNE
	fBitOr
	fBitAnd
	fBitXor
	fLShift
	fRShift
	fNot
	fAbs
	fLeast
	fGreatest
	fDebug
	fPi
	fSqrt
	fLn
	fExp
	fInt
	fDouble
	fRandom
	fRandomGaussian
	fRandomExponential
	fRandomZipfian
	fPow
	fHashMurmur2
	fHashFNV1a
	fPermute
)

// Argument counts with special meanings, as in exprparse.y.
const (
	nargsVariable = -1 // least, greatest: at least one
	nargsHash     = -3 // value [, seed]
	nargsPermute  = -4 // value, size [, seed]
)

type funcDef struct {
	name  string
	nargs int
	f     fn
}

// funcByName holds the functions a script can call by name (lower case).
var funcByName = map[string]funcDef{}

func init() {
	for _, d := range []funcDef{
		{"mod", 2, fMod},
		{"abs", 1, fAbs},
		{"least", nargsVariable, fLeast},
		{"greatest", nargsVariable, fGreatest},
		{"debug", 1, fDebug},
		{"pi", 0, fPi},
		{"sqrt", 1, fSqrt},
		{"ln", 1, fLn},
		{"exp", 1, fExp},
		{"int", 1, fInt},
		{"double", 1, fDouble},
		{"random", 2, fRandom},
		{"random_gaussian", 3, fRandomGaussian},
		{"random_exponential", 3, fRandomExponential},
		{"random_zipfian", 3, fRandomZipfian},
		{"pow", 2, fPow},
		{"power", 2, fPow},
		{"hash", nargsHash, fHashMurmur2},
		{"hash_murmur2", nargsHash, fHashMurmur2},
		{"hash_fnv1a", nargsHash, fHashFNV1a},
		{"permute", nargsPermute, fPermute},
	} {
		funcByName[d.name] = d
	}
}

// makeCall checks the argument count as make_func does and builds the node;
// msg is pgbench's complaint when the count is wrong.
func makeCall(d funcDef, args []node) (node, string) {
	switch d.nargs {
	case nargsVariable:
		if len(args) == 0 {
			return nil, "at least one argument expected"
		}
	case nargsHash:
		if len(args) < 1 || len(args) > 2 {
			return nil, "unexpected number of arguments"
		}
		if len(args) == 1 {
			args = append(args, &varNode{name: "default_seed"})
		}
	case nargsPermute:
		if len(args) < 2 || len(args) > 3 {
			return nil, "unexpected number of arguments"
		}
		if len(args) == 2 {
			args = append(args, &varNode{name: "default_seed"})
		}
	default:
		if len(args) != d.nargs {
			return nil, "unexpected number of arguments"
		}
	}
	switch {
	case d.f == fMod || d.f == fPow || d.f == fHashMurmur2 || d.f == fHashFNV1a:
		return &binNode{op: d.f, a: args[0], b: args[1]}, ""
	case len(args) == 1 && d.nargs == 1:
		return &unNode{op: d.f, a: args[0]}, ""
	}
	return &callNode{op: d.f, args: args}, ""
}
