package diff

// GoldenReport is goldenReport, for render_test.go (package diff_test,
// which may import report: report imports diff).
var GoldenReport = goldenReport
