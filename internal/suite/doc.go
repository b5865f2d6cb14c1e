// Package suite reads suite files (named scenarios tagged with tiers), runs
// the scenarios of a tier in order, each isolated, and describes the outcome
// as a Report: the JSON companion of the Markdown report.
package suite
