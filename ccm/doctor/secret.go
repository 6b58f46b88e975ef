package doctor

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// SecretName is the Secret the CCM's manifests read HCLOUD_TOKEN (key
// token) and HCLOUD_NETWORK (key network) from.
const SecretName = "hcloud"

// SecretEnv returns getenv with HCLOUD_TOKEN, and HCLOUD_NETWORK when it
// is unset, read from Secret hcloud in namespace, as the CCM's pod gets
// them; for when neither HCLOUD_TOKEN nor HCLOUD_TOKEN_FILE is set.
func SecretEnv(ctx context.Context, kube kubernetes.Interface, namespace string, getenv func(string) string) (func(string) string, error) {
	s, err := kube.CoreV1().Secrets(namespace).Get(ctx, SecretName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("HCLOUD_TOKEN is unset and Secret %s/%s cannot be read: %w", namespace, SecretName, err)
	}
	token, network := string(s.Data["token"]), string(s.Data["network"])
	robotUser, robotPassword := string(s.Data["robot-user"]), string(s.Data["robot-password"])
	if token == "" {
		return nil, fmt.Errorf("HCLOUD_TOKEN is unset and Secret %s/%s has no key token", namespace, SecretName)
	}
	return func(name string) string {
		switch v := getenv(name); {
		case name == "HCLOUD_TOKEN":
			return token
		case name == "HCLOUD_NETWORK" && v == "":
			return network
		case name == "ROBOT_USER" && v == "":
			return robotUser
		case name == "ROBOT_PASSWORD" && v == "":
			return robotPassword
		default:
			return v
		}
	}, nil
}
