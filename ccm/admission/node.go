package admission

import (
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
)

// NodePath is where the Node webhook is served.
const NodePath = "/validate-node"

// NodeHandler explains to whoever writes a Node (a kubelet registering,
// an operator annotating) what the CCM will make of it. It never refuses:
// a Node the apiserver would take is taken.
type NodeHandler struct {
	explain func(old, cur *corev1.Node) []string
}

// NewNode is a NodeHandler whose warnings explain gives, for the Node
// before (nil on CREATE) and after the write.
func NewNode(explain func(old, cur *corev1.Node) []string) *NodeHandler {
	return &NodeHandler{explain: explain}
}

// Admit allows every Node, with the warnings of a CREATE or UPDATE.
func (h *NodeHandler) Admit(req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	allow := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Kind.Group != "" || req.Kind.Kind != "Node" || req.SubResource != "" ||
		(req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return allow, nil
	}
	cur, err := decodeNode(req.Object.Raw)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", req.Name, err)
	}
	var old *corev1.Node
	if req.Operation == admissionv1.Update {
		if old, err = decodeNode(req.OldObject.Raw); err != nil {
			return nil, fmt.Errorf("node %s (old): %w", req.Name, err)
		}
	}
	allow.Warnings = h.explain(old, cur)
	return allow, nil
}

func decodeNode(raw []byte) (*corev1.Node, error) {
	n := &corev1.Node{}
	if err := json.Unmarshal(raw, n); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return n, nil
}
