{{/*
The base name of every object: hcloud-cloud-controller-manager, as the
official chart names them, or nameOverride. The helper keeps the official
chart's name, so values written for it (selectorLabels) render here too.
*/}}
{{- define "hcloud-cloud-controller-manager.name" -}}
{{- .Values.nameOverride | default "hcloud-cloud-controller-manager" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The selector labels as YAML: selectorLabels through tpl. */}}
{{- define "hcloud-cloud-controller-manager.selectorLabels" -}}
{{- tpl (toYaml .Values.selectorLabels) . }}
{{- end }}

{{/*
The pods' labels: app.kubernetes.io/name (which the default anti-affinity
selects, whatever selectorLabels say), podLabels, then the selector labels,
which win.
*/}}
{{- define "hcloud-cloud-controller-manager.podLabels" -}}
{{- $labels := dict "app.kubernetes.io/name" (include "hcloud-cloud-controller-manager.name" .) }}
{{- $labels = merge (fromYaml (include "hcloud-cloud-controller-manager.selectorLabels" .)) .Values.podLabels $labels }}
{{- toYaml $labels }}
{{- end }}

{{/*
Refuses values this chart cannot honour, each with what to do instead.
*/}}
{{- define "hcloud-cloud-controller-manager.validate" -}}
{{- if not (has .Values.kind (list "Deployment" "DaemonSet")) }}
{{- fail (printf "kind=%v: want Deployment or DaemonSet" .Values.kind) }}
{{- end }}
{{- if and .Values.webhook.enabled (not (has .Values.webhook.certificates (list "self-signed" "cert-manager"))) }}
{{- fail (printf "webhook.certificates=%v: want self-signed or cert-manager" .Values.webhook.certificates) }}
{{- end }}
{{- if and .Values.networking.enabled (not .Values.networking.clusterCIDR) }}
{{- fail "networking.enabled=true needs networking.clusterCIDR, the cluster's pod CIDR such as 10.244.0.0/16" }}
{{- end }}
{{- $_ := include "hcloud-cloud-controller-manager.metricsPort" . }}
{{- end }}

{{/*
Whether leader election is on: a DaemonSet, or a Deployment with more than
one replica, as in the official chart (which leaves a DaemonSet to the
binary's default, also true).
*/}}
{{- define "hcloud-cloud-controller-manager.leaderElect" -}}
{{- if or (eq .Values.kind "DaemonSet") (gt (int .Values.replicaCount) 1) }}true{{ else }}false{{ end }}
{{- end }}

{{/*
The container's arguments as a YAML list: args sorted by flag (an empty
string gives a bare --flag, null nothing), then the flags the chart manages
unless args names them.
*/}}
{{- define "hcloud-cloud-controller-manager.args" -}}
{{- $args := deepCopy (.Values.args | default dict) }}
{{- if and .Values.webhook.enabled (eq (toString (get $args "webhook-secure-port")) "0") }}
{{- $_ := unset $args "webhook-secure-port" }}
{{- end }}
{{- $out := list }}
{{- range $flag, $value := $args }}
{{- if kindIs "invalid" $value }}
{{- else if eq (toString $value) "" }}
{{- $out = append $out (printf "--%s" $flag) }}
{{- else }}
{{- $out = append $out (printf "--%s=%s" $flag (toString $value)) }}
{{- end }}
{{- end }}
{{- $managed := list }}
{{- if .Values.networking.enabled }}
{{- $managed = append $managed (list "allocate-node-cidrs" "true") }}
{{- $managed = append $managed (list "cluster-cidr" .Values.networking.clusterCIDR) }}
{{- end }}
{{- $managed = append $managed (list "leader-elect" (include "hcloud-cloud-controller-manager.leaderElect" .)) }}
{{- if .Values.webhook.enabled }}
{{- $name := include "hcloud-cloud-controller-manager.name" . }}
{{- $managed = append $managed (list "webhooks" (ternary "service,node" "service" (eq .Values.webhook.nodes true))) }}
{{- $managed = append $managed (list "webhook-secure-port" (toString .Values.webhook.port)) }}
{{- if eq .Values.webhook.certificates "self-signed" }}
{{- $managed = append $managed (list "webhook-cert-secret" (printf "%s/%s-webhook-tls" .Release.Namespace $name)) }}
{{- $managed = append $managed (list "webhook-service" (printf "%s/%s-webhook" .Release.Namespace $name)) }}
{{- $managed = append $managed (list "webhook-configuration" $name) }}
{{- else }}
{{- $managed = append $managed (list "webhook-tls-cert-file" "/etc/hcloud-ccm/webhook/tls.crt") }}
{{- $managed = append $managed (list "webhook-tls-private-key-file" "/etc/hcloud-ccm/webhook/tls.key") }}
{{- end }}
{{- end }}
{{- range $managed }}
{{- if not (hasKey $args (first .)) }}
{{- $out = append $out (printf "--%s=%s" (first .) (last .)) }}
{{- end }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/*
The container's environment as a YAML list: env sorted by name (null
entries dropped; values through tpl, a plain value made a string), then
HCLOUD_NETWORK with networking, HCLOUD_METRICS_ENABLED=false without
monitoring and, for a Deployment, POD_NAME and POD_NAMESPACE from the
downward API (the rollout guard), unless env names them.
*/}}
{{- define "hcloud-cloud-controller-manager.env" -}}
{{- $env := .Values.env | default dict }}
{{- $out := list }}
{{- range $name, $value := $env }}
{{- if not (kindIs "invalid" $value) }}
{{- $entry := merge (dict "name" $name) (fromYaml (tpl (toYaml $value) $)) }}
{{- if hasKey $entry "value" }}
{{- $_ := set $entry "value" (toString $entry.value) }}
{{- end }}
{{- $out = append $out $entry }}
{{- end }}
{{- end }}
{{- if and .Values.networking.enabled (not (hasKey $env "HCLOUD_NETWORK")) }}
{{- $out = append $out (merge (dict "name" "HCLOUD_NETWORK") (fromYaml (tpl (toYaml .Values.networking.network) $))) }}
{{- end }}
{{- if and (not .Values.monitoring.enabled) (not (hasKey $env "HCLOUD_METRICS_ENABLED")) }}
{{- $out = append $out (dict "name" "HCLOUD_METRICS_ENABLED" "value" "false") }}
{{- end }}
{{- if and .Values.robot.enabled (not (hasKey $env "ROBOT_ENABLED")) }}
{{- $out = append $out (dict "name" "ROBOT_ENABLED" "value" "true") }}
{{- end }}
{{- if eq .Values.kind "Deployment" }}
{{- range $name, $path := dict "POD_NAME" "metadata.name" "POD_NAMESPACE" "metadata.namespace" }}
{{- if not (hasKey $env $name) }}
{{- $out = append $out (dict "name" $name "valueFrom" (dict "fieldRef" (dict "apiVersion" "v1" "fieldPath" $path))) }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/*
The port health, readiness and metrics are served on: the port of
env.HCLOUD_METRICS_ADDRESS.value when set, else the binary's default 8233.
*/}}
{{- define "hcloud-cloud-controller-manager.metricsPort" -}}
{{- $addr := ":8233" }}
{{- $set := get (.Values.env | default dict) "HCLOUD_METRICS_ADDRESS" }}
{{- if and (kindIs "map" $set) (hasKey $set "value") }}
{{- $addr = toString $set.value }}
{{- end }}
{{- $port := regexFind "[0-9]+$" $addr }}
{{- if not $port }}
{{- fail (printf "env.HCLOUD_METRICS_ADDRESS=%q: want host:port such as :8233" $addr) }}
{{- end }}
{{- $port }}
{{- end }}

{{/* imagePullSecrets from image.pullSecrets, names or {name: ...} objects. */}}
{{- define "hcloud-cloud-controller-manager.pullSecrets" -}}
{{- $out := list }}
{{- range .Values.image.pullSecrets }}
{{- if kindIs "string" . }}
{{- $out = append $out (dict "name" .) }}
{{- else }}
{{- $out = append $out . }}
{{- end }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/*
The pod template of the Deployment and the DaemonSet. kind=DaemonSet
ignores affinity, as the official chart does.
*/}}
{{- define "hcloud-cloud-controller-manager.podTemplate" -}}
metadata:
  labels:
    {{- include "hcloud-cloud-controller-manager.podLabels" . | nindent 4 }}
  {{- $annotations := .Values.podAnnotations | default dict }}
  {{- if eq .Values.kind "Deployment" }}
  {{- /* The pods wait for older revisions' pods to be gone (package ccm/rollout). */}}
  {{- $annotations = merge (dict "hcloud-ccm.hcloudlab.dev/waits-for-older-pods" "true") $annotations }}
  {{- end }}
  {{- with $annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "hcloud-cloud-controller-manager.name" . }}
  {{- with .Values.image.pullSecrets }}
  imagePullSecrets:
    {{- include "hcloud-cloud-controller-manager.pullSecrets" $ | nindent 4 }}
  {{- end }}
  {{- with .Values.podSecurityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if .Values.networking.enabled }}
  # The route controller and the CNI come up together: the CCM must not
  # need the pod network.
  hostNetwork: true
  {{- end }}
  dnsPolicy: {{ .Values.dnsPolicy }}
  {{- with .Values.dnsConfig }}
  dnsConfig:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  tolerations:
    # Nodes wait for this CCM to initialise them.
    - key: node.cloudprovider.kubernetes.io/uninitialized
      value: "true"
      effect: NoSchedule
    - key: CriticalAddonsOnly
      operator: Exists
    # The control plane, by its current and its former name.
    - key: node-role.kubernetes.io/control-plane
      operator: Exists
      effect: NoSchedule
    - key: node-role.kubernetes.io/master
      operator: Exists
      effect: NoSchedule
    # Not evicted from a node whose network is not ready yet.
    - key: node.kubernetes.io/not-ready
      effect: NoExecute
    {{- with .Values.additionalTolerations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if and (eq .Values.kind "Deployment") .Values.affinity }}
  affinity:
    {{- tpl (toYaml .Values.affinity) . | nindent 4 }}
  {{- end }}
  containers:
    - name: hcloud-cloud-controller-manager
      image: {{ include "hcloud-cloud-controller-manager.image" . | quote }}
      args:
        {{- include "hcloud-cloud-controller-manager.args" . | nindent 8 }}
      {{- $env := include "hcloud-cloud-controller-manager.env" . }}
      {{- if ne $env "[]" }}
      env:
        {{- $env | nindent 8 }}
      {{- end }}
      ports:
        # Health, readiness and (with monitoring.enabled) metrics, served
        # on HCLOUD_METRICS_ADDRESS without authentication.
        - name: metrics
          containerPort: {{ include "hcloud-cloud-controller-manager.metricsPort" . }}
        {{- if .Values.webhook.enabled }}
        # The Service admission webhook, behind the Service <name>-webhook.
        - name: webhook
          containerPort: {{ .Values.webhook.port }}
        {{- end }}
      {{- with .Values.livenessProbe }}
      livenessProbe:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.readinessProbe }}
      readinessProbe:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.securityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- $mounts := .Values.extraVolumeMounts | default list }}
      {{- $volumes := .Values.extraVolumes | default list }}
      {{- $name := include "hcloud-cloud-controller-manager.name" . }}
      {{- if and .Values.webhook.enabled (eq .Values.webhook.certificates "cert-manager") }}
      {{- $mounts = append $mounts (dict "name" "webhook-tls" "mountPath" "/etc/hcloud-ccm/webhook" "readOnly" true) }}
      {{- $volumes = append $volumes (dict "name" "webhook-tls" "secret" (dict "secretName" (printf "%s-webhook-tls" $name))) }}
      {{- end }}
      {{- with $mounts }}
      volumeMounts:
        {{- toYaml . | nindent 8 }}
      {{- end }}
  {{- with $volumes }}
  volumes:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/*
The image. The official chart's values file, used as it is, names the
official image with the tag "v{{ $.Chart.Version }}": that means "the
image of this chart", so it gives this project's image at the chart's
appVersion. The official image with any other tag is refused: this chart
does not run the official CCM.
*/}}
{{- define "hcloud-cloud-controller-manager.image" -}}
{{- $ours := index .Chart.Annotations "hcloudlab.dev/image" | default "ghcr.io/hcloudlab/hcloud-ccm" }}
{{- $repo := .Values.image.repository | default $ours }}
{{- $tag := .Values.image.tag | default "" | toString }}
{{- if has (trimPrefix "docker.io/" $repo) (list "hetznercloud/hcloud-cloud-controller-manager") }}
{{- if not (has $tag (list "" "v{{ $.Chart.Version }}")) }}
{{- fail (printf "image.repository=%s with image.tag=%s names the official CCM's image, which this chart does not run; set image.repository=%s and image.tag (or leave both unset for %s)" $repo $tag $ours .Chart.AppVersion) }}
{{- end }}
{{- $repo = $ours }}
{{- $tag = "" }}
{{- end }}
{{- printf "%s:%s" $repo (tpl ($tag | default .Chart.AppVersion) .) }}
{{- end }}
