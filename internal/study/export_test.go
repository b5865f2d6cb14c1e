package study

// Res, Seed000, Seed001 and LadderOf are res, seed000, seed001 and
// ladder, for the tests of study.md (package study_test, which may import
// report: report imports study).
var (
	Res      = res
	Seed000  = seed000
	Seed001  = seed001
	LadderOf = ladder
)
