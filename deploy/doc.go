// Package deploy is how an operator installs the CCM: the Helm chart in
// chart/ and the plain manifests ccm.yaml and ccm-networks.yaml rendered from
// it; its tests render the chart with helm (scripts/helm.sh) and check both.
package deploy
