package trainevents

// The arguments of the batch statements. Where the dialect has array
// parameters they are typed arrays that unnest() expands; elsewhere
// (SQLite) the batch is one JSON array of rows that json_each() expands.
// Both are built into buffers the client reuses.

func (c *client) setArgs(args ...any) []any {
	c.args = append(c.args[:0], args...)
	return c.args
}

// eventArgs: id and payload of each event in b, and the flat columns when
// the application writes them, in the order of insertEvents' parameters.
func (c *client) eventArgs(b *batch) []any {
	manual := c.w.eff.ManualColumns
	if !c.w.caps.ArrayParams {
		j := append(b.enc[:0], '[')
		for i := range b.events {
			e := &b.events[i]
			if i > 0 {
				j = append(j, ',')
			}
			j = append(j, `["`...)
			j = appendUUID(j, e.id)
			j = append(j, `",`...)
			j = append(j, e.payload...)
			if manual {
				j = append(j, `,"`...)
				j = append(j, e.eventType...)
				j = append(j, `","`...)
				j = appendUUID(j, e.authorityID)
				j = append(j, `","`...)
				j = append(j, e.trainID...) // [A-Z0-9-] only: no escaping needed
				j = append(j, '"')
			}
			j = append(j, ']')
		}
		b.enc = append(j, ']')
		return c.setArgs(string(b.enc))
	}
	a := &b.cols
	a.ids, a.payloads = a.ids[:0], a.payloads[:0]
	a.types, a.auths, a.trains = a.types[:0], a.auths[:0], a.trains[:0]
	for i := range b.events {
		e := &b.events[i]
		a.ids = append(a.ids, e.id)
		a.payloads = append(a.payloads, e.payload)
		if manual {
			a.types = append(a.types, e.eventType)
			a.auths = append(a.auths, e.authorityID)
			a.trains = append(a.trains, e.trainID)
		}
	}
	if !manual {
		return c.setArgs(a.ids, a.payloads)
	}
	return c.setArgs(a.ids, a.types, a.auths, a.trains, a.payloads) // payloads last: see arrayStatements
}

// idArgs: the ids in c.ids.
func (c *client) idArgs() []any {
	if c.w.caps.ArrayParams {
		return c.setArgs(c.ids)
	}
	b := append(c.enc[:0], '[')
	for i, id := range c.ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = appendUUID(b, id)
		b = append(b, '"')
	}
	c.enc = append(b, ']')
	return c.setArgs(string(c.enc))
}

// statusArgs: each selected id with its new status.
func (c *client) statusArgs() []any {
	if c.w.caps.ArrayParams {
		return c.setArgs(c.ids, c.newStatus)
	}
	return c.rowsArgs(func(b []byte, i int) []byte {
		b = append(b, ",\""...)
		b = append(b, c.newStatus[i]...)
		return append(b, '"')
	})
}

// payloadArgs: each selected id with its rewritten TEXT payload, or with
// the new state and fleeted flag that JSONB updates in place.
func (c *client) payloadArgs() []any {
	text := c.w.eff.TextPayload
	if c.w.caps.ArrayParams {
		if text {
			return c.setArgs(c.ids, c.payloads)
		}
		return c.setArgs(c.ids, c.newState, c.fleeted)
	}
	return c.rowsArgs(func(b []byte, i int) []byte {
		b = append(b, ',')
		if text {
			return append(b, c.payloads[i]...)
		}
		b = append(b, '"')
		b = append(b, c.newState[i]...)
		b = append(b, `",`...)
		if c.fleeted[i] {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	})
}

// rowsArgs encodes one JSON row per id: ["id", ...what rest appends].
func (c *client) rowsArgs(rest func(b []byte, i int) []byte) []any {
	b := append(c.enc[:0], '[')
	for i, id := range c.ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `["`...)
		b = appendUUID(b, id)
		b = append(b, '"')
		b = rest(b, i)
		b = append(b, ']')
	}
	c.enc = append(b, ']')
	return c.setArgs(string(c.enc))
}
