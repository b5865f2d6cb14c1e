package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// Copier is a session that loads rows in bulk. PostgreSQL sessions stream
// COPY ... FROM STDIN in text format; SQLite sessions insert batches of
// multi-row INSERTs. A Conn from any target satisfies it (type-assert a
// Conn to Copier).
type Copier interface {
	// CopyFrom loads the rows c.Rows produces into c.Table and returns how
	// many it loaded. Inside a transaction (Begin) the rows become part of
	// it; outside one the load is one transaction of its own. Memory stays
	// bounded whatever the number of rows.
	CopyFrom(ctx context.Context, c Copy) (int64, error)
}

// Copy describes one bulk load.
type Copy struct {
	Table string
	// Columns names the columns each row fills, in order; nil means all the
	// table's columns in their declared order.
	Columns []string
	// Freeze asks for PostgreSQL's COPY ... WITH (FREEZE ON): the rows are
	// loaded already frozen, which the server allows only when the table
	// was created or truncated in the current transaction. Dialects
	// without it ignore it.
	Freeze bool
	// Rows produces the rows, one per call.
	Rows CopySource
}

// CopySource produces the next row by appending its fields, in column
// order, to r. It returns false, appending nothing, when there are no more
// rows. A returned error stops the load and is returned by CopyFrom.
type CopySource func(r *CopyRow) (more bool, err error)

// CopyRow receives the fields of one row. It encodes them straight into the
// form the dialect sends (COPY text, or SQL literals), so producing a row
// allocates nothing.
type CopyRow struct {
	buf    []byte
	fields int
	sql    bool // SQL literal syntax (SQLite) instead of COPY text
}

func (r *CopyRow) sep() {
	if r.fields > 0 {
		if r.sql {
			r.buf = append(r.buf, ',')
		} else {
			r.buf = append(r.buf, '\t')
		}
	}
	r.fields++
}

// Int appends an integer field.
func (r *CopyRow) Int(v int64) {
	r.sep()
	r.buf = strconv.AppendInt(r.buf, v, 10)
}

// Null appends an SQL NULL.
func (r *CopyRow) Null() {
	r.sep()
	if r.sql {
		r.buf = append(r.buf, "NULL"...)
	} else {
		r.buf = append(r.buf, `\N`...)
	}
}

// Text appends a text field (any value the column accepts in its text
// form).
func (r *CopyRow) Text(s string) {
	r.sep()
	if r.sql {
		r.buf = append(r.buf, '\'')
		for i := 0; i < len(s); i++ {
			if s[i] == '\'' {
				r.buf = append(r.buf, '\'')
			}
			r.buf = append(r.buf, s[i])
		}
		r.buf = append(r.buf, '\'')
		return
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			r.buf = append(r.buf, `\\`...)
		case '\n':
			r.buf = append(r.buf, `\n`...)
		case '\r':
			r.buf = append(r.buf, `\r`...)
		case '\t':
			r.buf = append(r.buf, `\t`...)
		default:
			r.buf = append(r.buf, c)
		}
	}
}

// CopyReader turns a CopySource into the COPY text stream, a few rows at a
// time (NewCopyReader).
type CopyReader struct {
	src  CopySource
	row  CopyRow
	pos  int // bytes of row.buf already handed out
	rows int64
	err  error // the source's error, returned once the buffer is drained
	done bool
	// failed holds the source's error for CopyFrom, which may return
	// before the goroutine reading from CopyReader has stopped.
	failed atomic.Pointer[error]
	// width checks each row has the same number of fields.
	width int
}

// NewCopyReader returns the COPY text stream of the rows src produces.
func NewCopyReader(src CopySource) *CopyReader { return &CopyReader{src: src} }

// Failed is the source's error, nil while it has not failed; it may be
// read while another goroutine still reads the stream.
func (c *CopyReader) Failed() error {
	if e := c.failed.Load(); e != nil {
		return *e
	}
	return nil
}

// copyChunk is how many bytes CopyReader gathers before handing them out.
const copyChunk = 64 << 10

// Read reads the stream.
func (c *CopyReader) Read(p []byte) (int, error) {
	if c.pos == len(c.row.buf) {
		c.row.buf, c.pos = c.row.buf[:0], 0
		if c.done {
			if c.err != nil {
				return 0, c.err
			}
			return 0, io.EOF
		}
		for len(c.row.buf) < copyChunk && !c.done {
			c.fill()
		}
	}
	n := copy(p, c.row.buf[c.pos:])
	c.pos += n
	return n, nil
}

// fill appends one row (and its newline) to the buffer.
func (c *CopyReader) fill() {
	start := len(c.row.buf)
	c.row.fields = 0
	more, err := c.src(&c.row)
	if err == nil && more {
		err = c.checkWidth()
	}
	if err != nil || !more {
		c.row.buf = c.row.buf[:start]
		c.done, c.err = true, err
		if err != nil {
			c.recordFailure(err)
		}
		return
	}
	c.row.buf = append(c.row.buf, '\n')
	c.rows++
}

// recordFailure keeps the source's error for CopyFrom; a separate
// function so that only a failing row moves an error to the heap.
func (c *CopyReader) recordFailure(err error) {
	c.failed.Store(&err)
}

func (c *CopyReader) checkWidth() error {
	if c.width == 0 {
		c.width = c.row.fields
	}
	if c.row.fields == 0 || c.row.fields != c.width {
		return fmt.Errorf("copy source gave row %d with %d fields, earlier rows had %d", c.rows+1, c.row.fields, c.width)
	}
	return nil
}

// CopyStatement is c's COPY ... FROM STDIN statement (text format), to
// send with the stream a CopyReader makes.
func CopyStatement(c Copy) (string, error) {
	if c.Table == "" || c.Rows == nil {
		return "", errors.New("copy: a table and a row source are needed")
	}
	var b strings.Builder
	b.WriteString("copy ")
	b.WriteString(c.Table)
	if c.Columns != nil {
		b.WriteString(" (")
		b.WriteString(strings.Join(c.Columns, ", "))
		b.WriteByte(')')
	}
	b.WriteString(" from stdin")
	if c.Freeze {
		b.WriteString(" with (freeze on)")
	}
	return b.String(), nil
}

// insertBatchRows and insertBatchBytes bound one multi-row INSERT.
const (
	insertBatchRows  = 500
	insertBatchBytes = 256 << 10
)

// InsertOwnTx is InsertBatches in a transaction of its own on conn
// unless one is open (inTx): begun first, committed after, rolled back
// when the load or the commit fails.
func InsertOwnTx(ctx context.Context, conn Conn, inTx bool, c Copy, exec func(sql string) error) (int64, error) {
	if inTx {
		n, err := InsertBatches(c, exec)
		if err != nil {
			return 0, err
		}
		return n, nil
	}
	if err := conn.Begin(ctx); err != nil {
		return 0, err
	}
	n, err := InsertBatches(c, exec)
	if err == nil {
		err = conn.Commit(ctx)
	}
	if err != nil {
		conn.Rollback(ctx)
		return 0, err
	}
	return n, nil
}

// InsertBatches loads c's rows as multi-row INSERTs of SQL literals (for
// engines without COPY), calling exec with each statement, and returns
// how many rows it loaded. The caller provides the transaction.
func InsertBatches(c Copy, exec func(sql string) error) (n int64, err error) {
	if c.Table == "" || c.Rows == nil {
		return 0, errors.New("copy: a table and a row source are needed")
	}
	head := "INSERT INTO " + c.Table
	if c.Columns != nil {
		head += " (" + strings.Join(c.Columns, ", ") + ")"
	}
	head += " VALUES "
	row := CopyRow{sql: true}
	width, inBatch := 0, 0
	flush := func() error {
		if inBatch == 0 {
			return nil
		}
		if err := exec(string(row.buf)); err != nil {
			return fmt.Errorf("copy into %s: %w", c.Table, err)
		}
		n += int64(inBatch)
		inBatch = 0
		return nil
	}
	for {
		if inBatch == 0 {
			row.buf = append(row.buf[:0], head...)
		}
		start := len(row.buf)
		if inBatch > 0 {
			row.buf = append(row.buf, ',')
		}
		row.buf = append(row.buf, '(')
		row.fields = 0
		more, err := c.Rows(&row)
		if err != nil {
			return 0, fmt.Errorf("copy into %s: %w", c.Table, err)
		}
		if !more {
			row.buf = row.buf[:start]
			break
		}
		if width == 0 {
			width = row.fields
		}
		if row.fields == 0 || row.fields != width {
			return 0, fmt.Errorf("copy into %s: copy source gave row %d with %d fields, earlier rows had %d", c.Table, n+int64(inBatch)+1, row.fields, width)
		}
		row.buf = append(row.buf, ')')
		inBatch++
		if inBatch >= insertBatchRows || len(row.buf) >= insertBatchBytes {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return n, nil
}
