package store

import (
	"reflect"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// undoIdentities name, for each element type of a list in a stored
// resource, the JSON members that identify an element, so a failed
// action's undo merges the list element by element (revertList). A type
// mapped to nil has no identity: the list is undone as one value, and a
// later change to it stays. TestEveryListHasAnUndoIdentity fails on a
// list of a struct type missing here, so a new list field cannot compile
// and then undo wrongly. Lists of scalars are sets of their values.
var undoIdentities = map[reflect.Type][]string{
	reflect.TypeFor[schema.ServerPrivateNet]():       {"network"},
	reflect.TypeFor[schema.LoadBalancerPrivateNet](): {"network"},
	reflect.TypeFor[schema.LoadBalancerService]():    {"listen_port"},
	reflect.TypeFor[Target]():                        {"type", "server", "label_selector", "ip"},
	reflect.TypeFor[TargetHealth]():                  {"listen_port"},
	reflect.TypeFor[schema.NetworkSubnet]():          {"ip_range"},
	reflect.TypeFor[schema.NetworkRoute]():           {"destination", "gateway"},

	// Set by the catalogue or by nothing fakecloud's actions change.
	reflect.TypeFor[schema.PricingServerTypePrice]():       nil,
	reflect.TypeFor[schema.PricingLoadBalancerTypePrice](): nil,
	reflect.TypeFor[schema.ServerTypeLocation]():           nil,
	reflect.TypeFor[schema.ServerFirewall]():               nil,
	reflect.TypeFor[schema.ServerPublicNetIPv6DNSPtr]():    nil,
	reflect.TypeFor[schema.CertificateUsedByRef]():         nil,
}

// undoable are the stored types an action's undo restores.
var undoable = []reflect.Type{
	reflect.TypeFor[StoredServer](), reflect.TypeFor[StoredLoadBalancer](),
	reflect.TypeFor[schema.Network](), reflect.TypeFor[schema.Certificate](),
}
