// Package deploy is how an operator installs the CCM: the Helm chart in
// chart/ and the plain manifests ccm.yaml and ccm-networks.yaml rendered from
// it. Its tests render the chart with helm from scripts/helm.sh (built once
// into ~/.cache/hcloud-ccm, a few minutes the first time) and check both.
package deploy
