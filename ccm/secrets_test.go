package ccm

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestSecretWatch: a Secret a Service names is read from its watch and
// each change is told; once no Service names it, its watch stops.
func TestSecretWatch(t *testing.T) {
	tls := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "shop-tls"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte("v1")}}
	kube := fake.NewClientset(tls)
	var mu sync.Mutex
	var told []string
	w := newSecretWatch(kube, func(key string) { mu.Lock(); told = append(told, key); mu.Unlock() })
	t.Cleanup(w.stopAll)
	ctx := t.Context()

	w.Use("uid-1", []string{"shop/shop-tls", "shop/missing"})
	sec, err := w.Get(ctx, "shop/shop-tls")
	if err != nil || sec == nil || string(sec.Data[corev1.TLSCertKey]) != "v1" {
		t.Fatalf("Get: %v %v", sec, err)
	}
	if sec, err := w.Get(ctx, "shop/missing"); sec != nil || err != nil {
		t.Errorf("a missing Secret: %v %v, want none and no error", sec, err)
	}
	renewed := tls.DeepCopy()
	renewed.Data[corev1.TLSCertKey], renewed.ResourceVersion = []byte("v2"), "2"
	if _, err := kube.CoreV1().Secrets("shop").Update(ctx, renewed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sec, _ := w.Get(ctx, "shop/shop-tls")
		mu.Lock()
		n := strings.Count(strings.Join(told, " "), "shop/shop-tls")
		mu.Unlock()
		if sec != nil && string(sec.Data[corev1.TLSCertKey]) == "v2" && n >= 2 { // its first listing, then the update
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the renewal was not seen: told %v", told)
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.Use("uid-1", nil)
	w.mu.Lock()
	left := len(w.watches)
	w.mu.Unlock()
	if left != 0 {
		t.Errorf("%d watches left once no Service names a Secret", left)
	}
}

// TestSecretWatchForbidden: without the permission, Get says which to grant.
func TestSecretWatchForbidden(t *testing.T) {
	kube := fake.NewClientset()
	kube.PrependReactor("*", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "shop-tls", nil)
	})
	w := newSecretWatch(kube, func(string) {})
	w.syncFor = 100 * time.Millisecond
	t.Cleanup(w.stopAll)
	w.Use("uid-1", []string{"shop/shop-tls"})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := w.Get(ctx, "shop/shop-tls")
	if err == nil || !strings.Contains(err.Error(), "grant it get, list and watch there") {
		t.Errorf("error %v, want one naming the permission", err)
	}
}
