package spec

import (
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// Enum members scoped by their type (an extension): Type.member names the
// member of the enum type Type, and a bare member names it when no other
// enum type has a member of that name.

// typeMember checks e, Type.member, where e.X names the type o.
func (c *checker) typeMember(e *syntax.SelectorExpr, id *syntax.IdentExpr, env *env) *Expr {
	t := c.resolveType((*syntax.NamedType)(id), env)
	if isInvalid(t) {
		return c.bad(e.Pos)
	}
	if t.Kind != EnumKind {
		c.errorf(e.Field.Pos, "%s.%s undefined (type %s is not an enum: only an enum type's members may be selected)", id.Name, e.Field.Name, typeString(t))
		return c.bad(e.Pos)
	}
	names := make([]string, 0, len(c.members[t]))
	for _, m := range c.members[t] {
		if m.name == e.Field.Name {
			m.used = true
			c.use(&e.Field, m)
			return c.constExpr(t, m.val, e.Pos)
		}
		names = append(names, m.name)
	}
	c.errorf(e.Field.Pos, "%s.%s undefined (type %s has no member %s)%s", id.Name, e.Field.Name, id.Name, e.Field.Name,
		didYouMean(nearest(e.Field.Name, names)))
	return c.bad(e.Pos)
}

// ambiguousMember reports the bare use at pos of a member name that
// several enum types declare (o.amb).
func (c *checker) ambiguousMember(pos Position, o *object) {
	var types, quals []string
	var notes []syntax.Note
	for _, m := range o.amb {
		types = append(types, typeString(m.typ))
		if m.typ.Name != "" {
			quals = append(quals, m.typ.Name+"."+m.name)
		}
		notes = append(notes, note(m.pos, "%s declared here, in %s", m.name, typeString(m.typ)))
	}
	hint := "; give the enums names and write Type." + o.name
	if len(quals) > 0 {
		hint = "; write " + strings.Join(quals, " or ")
	}
	c.errorNotes(pos, notes, "ambiguous enum member %s: a member of %s%s", o.name, strings.Join(types, " and of "), hint)
}
