// Kubeconfig files for the running control plane: one authenticating with the static bearer
// token, one with the admin client certificate. Both embed the CA as certificate-authority-data.
package main

import (
	"encoding/base64"
	"fmt"
	"os"
)

func readBase64(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(data), nil
}

// writeKubeconfigs writes DIR/kubeconfig (token) and DIR/kubeconfig-cert (client certificate).
func writeKubeconfigs(m material, server string) error {
	ca, err := readBase64(m.caCert)
	if err != nil {
		return err
	}
	cert, err := readBase64(m.adminCert)
	if err != nil {
		return err
	}
	key, err := readBase64(m.adminKey)
	if err != nil {
		return err
	}
	head := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kopf-real
  cluster:
    server: %s
    certificate-authority-data: %s
contexts:
- name: kopf-real
  context:
    cluster: kopf-real
    user: kopf-admin
current-context: kopf-real
preferences: {}
users:
- name: kopf-admin
  user:
`, server, ca)
	token := head + fmt.Sprintf("    token: %s\n", m.token)
	certs := head + fmt.Sprintf("    client-certificate-data: %s\n    client-key-data: %s\n", cert, key)
	if err := os.WriteFile(m.dir+"/kubeconfig", []byte(token), 0o600); err != nil {
		return err
	}
	return os.WriteFile(m.dir+"/kubeconfig-cert", []byte(certs), 0o600)
}
