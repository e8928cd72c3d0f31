// The audit trail of the tests' own requests: the API server logs, as JSON lines in DIR/audit.log,
// the metadata (verb, resource, user, response code) of every request made with the test token
// (user kopf-admin) and of every request made with a service account's token (group
// system:serviceaccounts), and nothing else (not even serve's own readiness probes). So a test tier
// can prove that its tests reached this server (and not, by mistake, an emulator) and report how
// many requests they made, and an operator run with a service account's token can be shown to
// have been refused nothing (no 403 for that user).
package main

import (
	"os"
	"path/filepath"
)

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
  # serve's own readiness probe uses the token too; it is not the tests' doing.
  - level: None
    nonResourceURLs: ["/readyz", "/readyz/*", "/healthz", "/healthz/*", "/livez", "/livez/*"]
  - level: Metadata
    users: ["kopf-admin"]
  - level: Metadata
    userGroups: ["system:serviceaccounts"]
  - level: None
`

// auditFlags writes the policy into dir and answers the API server's flags for the audit log.
func auditFlags(dir string) ([]string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + filepath.Join(dir, "audit.log"),
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--audit-log-maxbackup=0",
	}, nil
}
