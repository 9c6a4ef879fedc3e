package vllm

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// hostOverrideEnv is testcontainers-go's own setting for the host on which
// published ports are reached; when it is set, it is obeyed as is.
const hostOverrideEnv = "TESTCONTAINERS_HOST_OVERRIDE"

// Where a process runs inside a container (it has /.dockerenv) and talks to
// an engine over a unix socket, testcontainers-go reaches published ports
// through the default gateway. That is right when the socket is mounted from
// another host, and wrong when the engine runs in the process's own network
// namespace (a VM or sandbox that happens to carry /.dockerenv): there the
// gateway is some router, and every health check times out. The engine is in
// the same namespace exactly when its default bridge's gateway address is one
// of this process's interface addresses; then the loopback address is used.

var (
	sameNetworkOnce sync.Once
	sameNetwork     bool
)

// engineSharesNetwork reports whether the Docker engine runs in this
// process's network namespace. Any failure to tell reads as "no", which
// leaves testcontainers-go's choice in place.
func engineSharesNetwork(ctx context.Context) bool {
	sameNetworkOnce.Do(func() {
		// The answer is kept for the process: a caller's cancellation
		// must not decide it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		cli, err := testcontainers.NewDockerClientWithOpts(ctx)
		if err != nil {
			return
		}
		defer cli.Close()
		res, err := cli.NetworkInspect(ctx, "bridge", client.NetworkInspectOptions{})
		if err != nil {
			return
		}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return
		}
		var gateways []netip.Addr
		for _, c := range res.Network.IPAM.Config {
			gateways = append(gateways, bridgeGateway(c.Gateway, c.Subnet))
		}
		sameNetwork = hasLocalAddr(gateways, addrs)
	})
	return sameNetwork
}

// bridgeGateway is a bridge's gateway address. Engines such as Docker 20.10
// leave the default bridge's gateway out of its IPAM config; it is then the
// subnet's first address, which is what the engine assigns.
func bridgeGateway(gateway netip.Addr, subnet netip.Prefix) netip.Addr {
	if gateway.IsValid() || !subnet.IsValid() {
		return gateway
	}
	return subnet.Masked().Addr().Next()
}

// hasLocalAddr reports whether any of the valid addresses in candidates is
// one of the interface addresses.
func hasLocalAddr(candidates []netip.Addr, ifaceAddrs []net.Addr) bool {
	for _, a := range ifaceAddrs {
		prefix, err := netip.ParsePrefix(a.String())
		if err != nil {
			continue
		}
		for _, c := range candidates {
			if c.IsValid() && c.Unmap() == prefix.Addr().Unmap() {
				return true
			}
		}
	}
	return false
}

// hostFunc names the host of a container's published ports.
type hostFunc func(ctx context.Context) (string, error)

// publishedHost picks the host on which the container's published ports
// answer: testcontainers-go's choice, unless it is a gateway address while
// the engine shares this process's network, where it is 127.0.0.1.
func publishedHost(ctx context.Context, tcHost hostFunc, sharesNetwork func(context.Context) bool) (string, error) {
	host, err := tcHost(ctx)
	if err != nil {
		return "", err
	}
	if os.Getenv(hostOverrideEnv) != "" || host == "localhost" {
		return host, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return host, nil
	}
	if sharesNetwork(ctx) {
		return "127.0.0.1", nil
	}
	return host, nil
}

// reachableTarget is a wait target whose Host is the published host.
type reachableTarget struct {
	wait.StrategyTarget
	host string
}

func (t reachableTarget) Host(context.Context) (string, error) { return t.host, nil }

// onPublishedHost runs a wait strategy against the published host.
type onPublishedHost struct {
	inner *wait.HTTPStrategy
}

var (
	_ wait.Strategy        = onPublishedHost{}
	_ wait.StrategyTimeout = onPublishedHost{}
)

func (s onPublishedHost) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	host, err := publishedHost(ctx, target.Host, engineSharesNetwork)
	if err != nil {
		return fmt.Errorf("container host: %w", err)
	}
	return s.inner.WaitUntilReady(ctx, reachableTarget{StrategyTarget: target, host: host})
}

func (s onPublishedHost) Timeout() *time.Duration { return s.inner.Timeout() }

func (s onPublishedHost) String() string { return s.inner.String() }
