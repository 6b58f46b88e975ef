// Package webhookcert keeps the admission webhook's serving certificate
// without cert-manager: a CA and a certificate for the webhook Service's
// DNS names, made by the CCM and kept in one Secret so that every replica
// serves the same one, the CA written into the caBundle of the
// ValidatingWebhookConfiguration, and both renewed well before they
// expire. The serving certificate is handed to the webhook server as a
// dynamiccertificates.CertKeyContentProvider, so a renewal needs no restart.
package webhookcert
