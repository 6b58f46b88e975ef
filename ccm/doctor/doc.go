// Package doctor checks a cluster against its Hetzner Cloud project and
// explains what stops the CCM from working: each finding is OK, WARN or
// FAIL, with a subject, what is wrong and how to fix it.
package doctor
