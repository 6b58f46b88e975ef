package world

// A floating IP and a volume each name at most one server; a server's
// view lists those that name it. These keep the name honest as servers
// go.

// serverLink is where a resource names its server (nil for none).
type serverLink[T any] func(v *T) **int64

// forgetServer drops a deleted server from the resources that name it;
// they stay, unassigned.
func forgetServer[T any](t *Table[T], link serverLink[T], gone Ref) {
	if gone.Type != "server" {
		return
	}
	for _, v := range t.All() {
		if p := link(v); *p != nil && **p == gone.ID {
			*p = nil
		}
	}
}

// fitServer leaves out of a restored resource a server deleted since.
func fitServer[T any](w *project, t *Table[T], link serverLink[T], id int64) {
	v, ok := t.Get(id)
	if !ok {
		return
	}
	if p := link(v); *p != nil {
		if _, alive := w.Servers.Get(**p); !alive {
			*p = nil
		}
	}
}

// linkedTo lists the resources that name a server, in ID order.
func linkedTo[T any](t *Table[T], link serverLink[T], id func(*T) int64, server int64) []int64 {
	out := []int64{}
	for _, v := range t.All() {
		if p := link(v); *p != nil && **p == server {
			out = append(out, id(v))
		}
	}
	return out
}
