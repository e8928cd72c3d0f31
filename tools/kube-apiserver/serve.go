// The `serve` command: embedded etcd, then kube-apiserver in this process, then the
// controller-manager child once the apiserver is ready; everything stops on SIGTERM/SIGINT.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/component-base/cli"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func serve(args []string) int {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	dir := flags.String("dir", "", "state directory (certificates, etcd data, kubeconfigs); required")
	port := flags.Int("port", 0, "secure port on 127.0.0.1 (0 picks a free one)")
	noControllers := flags.Bool("no-controllers", false, "do not start the garbage collector and namespace controllers")
	exitWith := flags.Int("exit-with", 0, "stop (as on SIGTERM) when the process with this pid is gone, e.g. a test runner that was killed")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "serve: --dir is required")
		return 2
	}
	if *exitWith > 0 {
		go watchParent(*exitWith)
	}
	if err := run(*dir, *port, !*noControllers); err != nil {
		fmt.Fprintf(os.Stderr, "serve: %v\n", err)
		return 1
	}
	return 0
}

func run(dir string, port int, controllers bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(dir, "ready"))
	// The pid of this process (not of whatever launched it, e.g. a forking setsid) for `stop`.
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return err
	}
	m := newMaterial(dir)
	if err := m.generate(); err != nil {
		return fmt.Errorf("generating certificates: %w", err)
	}
	if port == 0 {
		p, err := freePort()
		if err != nil {
			return err
		}
		port = p
	}
	server := "https://127.0.0.1:" + strconv.Itoa(port)
	if err := writeKubeconfigs(m, server); err != nil {
		return fmt.Errorf("writing kubeconfigs: %w", err)
	}

	started := time.Now()
	etcd, etcdURL, err := startEtcd(filepath.Join(dir, "etcd"))
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	defer stopEtcd(etcd)
	fmt.Fprintf(os.Stderr, "etcd ready at %s after %s\n", etcdURL, time.Since(started).Round(time.Millisecond))

	audit, err := auditFlags(dir)
	if err != nil {
		return fmt.Errorf("writing the audit policy: %w", err)
	}
	command := apiserver.NewAPIServerCommand() // installs the SIGTERM/SIGINT handler
	command.SetArgs(append([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--tls-cert-file=" + m.servingCert,
		"--tls-private-key-file=" + m.servingKey,
		"--client-ca-file=" + m.caCert,
		"--token-auth-file=" + m.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + m.saPub,
		"--service-account-signing-key-file=" + m.saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		// Endpoints may not hold loopback addresses, so the "kubernetes" service gets none.
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
		"--profiling=false",
		// Compact etcd every 10s (default 5m), so that old resourceVersions expire (410 Gone) within
		// a test run, as they do in long-lived clusters.
		"--etcd-compaction-interval=10s",
		// Sharded list and watch (alpha in v1.36): the shardSelector list option and shardInfo.
		"--feature-gates=ShardedListAndWatch=true",
	}, audit...))
	done := make(chan int, 1)
	go func() { done <- cli.Run(command) }()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := waitReady(ctx, m, server, done); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "kube-apiserver %s ready at %s after %s\n", kubernetesVersion, server, time.Since(started).Round(time.Millisecond))

	var child *exec.Cmd
	if controllers {
		child, err = startControllers(m)
		if err != nil {
			return fmt.Errorf("starting the controllers: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), []byte(server+"\n"), 0o600); err != nil {
		return err
	}

	// The apiserver's own handler starts its graceful shutdown on the same signal; its HTTP server
	// then waits for open connections, so the controllers (with their watches) must go first.
	// If it still has not returned 20 seconds later, give up on it.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		if child != nil {
			stopChild(child)
		}
		time.Sleep(20 * time.Second)
		fmt.Fprintln(os.Stderr, "kube-apiserver has not finished its graceful shutdown within 20s; exiting")
		stopEtcd(etcd)
		os.Exit(0)
	}()

	code := <-done
	fmt.Fprintf(os.Stderr, "kube-apiserver stopped (exit code %d)\n", code)
	if child != nil {
		stopChild(child)
	}
	_ = os.Remove(filepath.Join(dir, "ready"))
	if code != 0 {
		return fmt.Errorf("kube-apiserver exited with code %d", code)
	}
	return nil
}

// watchParent sends this process SIGTERM once the given process no longer exists, so a control
// plane started for a test run does not outlive a runner that was killed before its teardown.
func watchParent(pid int) {
	for {
		time.Sleep(2 * time.Second)
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			fmt.Fprintf(os.Stderr, "process %d is gone; stopping\n", pid)
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
			return
		}
	}
}

var childStopped sync.Once

// stopChild stops the controller manager: SIGTERM, then SIGKILL after 10 seconds. Idempotent.
func stopChild(child *exec.Cmd) {
	childStopped.Do(func() {
		_ = child.Process.Signal(syscall.SIGTERM)
		waited := make(chan struct{})
		go func() { _ = child.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			_ = child.Process.Kill()
			<-waited
		}
		fmt.Fprintln(os.Stderr, "controllers stopped")
	})
}

// stopEtcd closes etcd, but gives up after 5 seconds: kube-apiserver never closes its etcd
// clients (its process normally just exits), and etcd's graceful stop waits for their watch
// streams. The data directory is temporary and fsync is off, so nothing is lost by not waiting.
func stopEtcd(e *embed.Etcd) {
	closed := make(chan struct{})
	go func() { e.Close(); close(closed) }()
	select {
	case <-closed:
		fmt.Fprintln(os.Stderr, "etcd stopped")
	case <-time.After(5 * time.Second):
		fmt.Fprintln(os.Stderr, "etcd still draining its clients after 5s; exiting anyway")
	}
}

// waitReady polls /readyz with the admin token until it answers 200, the apiserver exits, or
// the context expires.
func waitReady(ctx context.Context, m material, server string, done <-chan int) error {
	pem, err := os.ReadFile(m.caCert)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+m.token)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case code := <-done:
			return fmt.Errorf("kube-apiserver exited with code %d before becoming ready", code)
		case <-ctx.Done():
			return errors.New("kube-apiserver did not become ready within 3 minutes")
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// startControllers runs kube-controller-manager's garbage collector, namespace, service-account
// and root-CA publisher controllers in a child process of this same binary. They cannot share this
// process: both commands install process-wide signal handlers and metric registries.
func startControllers(m material) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(m.dir, "controller-manager.log"))
	if err != nil {
		return nil, err
	}
	child := exec.Command(self, "controller-manager",
		"--kubeconfig="+filepath.Join(m.dir, "kubeconfig-cert"),
		"--controllers=garbagecollector,namespace,serviceaccount,root-ca-cert-publisher",
		"--leader-elect=false",
		"--secure-port=0",
		"--root-ca-file="+m.caCert,
		"--use-service-account-credentials=false",
	)
	child.Stdout, child.Stderr = log, log
	// The child dies with us even if we are killed outright.
	child.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := child.Start(); err != nil {
		return nil, err
	}
	return child, nil
}
