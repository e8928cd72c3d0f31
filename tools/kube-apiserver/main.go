// Command kube-apiserver runs a real Kubernetes control plane for Kopf's tests on loopback:
// an embedded etcd, the genuine kube-apiserver (from k8s.io/kubernetes) in the same process,
// and kube-controller-manager's garbage collector, namespace, service-account and root-CA
// publisher controllers in a child process started from this same binary. It generates its own CA, serving certificate,
// service-account signing key, a static admin token and an admin client certificate, and writes
// kubeconfigs for both credentials.
//
// Usage:
//
//	kube-apiserver serve --dir DIR [--port N] [--no-controllers]   (writes DIR/pid, DIR/ready)
//	kube-apiserver controller-manager [kube-controller-manager flags...]   (internal)
//	kube-apiserver version
//
// `serve` writes DIR/kubeconfig (bearer token, user kopf-admin), DIR/kubeconfig-cert (client
// certificate, user kopf-controllers), DIR/audit.log (the requests of kopf-admin and of service
// accounts, see audit.go) and,
// once /readyz answers, DIR/ready containing the https URL. It stops cleanly on SIGTERM/SIGINT.
package main

import (
	"fmt"
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

// kubernetesVersion is the release this program is built from; it must match go.mod.
const kubernetesVersion = "v1.36.3"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kube-apiserver serve --dir DIR [--port N] [--no-controllers] | version")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		os.Exit(serve(os.Args[2:]))
	case "controller-manager":
		command := kcm.NewControllerManagerCommand()
		command.SetArgs(os.Args[2:])
		os.Exit(cli.Run(command))
	case "version":
		fmt.Println(kubernetesVersion)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q (expected serve, controller-manager or version)\n", os.Args[1])
		os.Exit(2)
	}
}
