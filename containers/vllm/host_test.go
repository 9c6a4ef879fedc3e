package vllm

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHasLocalAddr(t *testing.T) {
	iface := []net.Addr{
		&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
		&net.IPNet{IP: net.ParseIP("172.17.0.1"), Mask: net.CIDRMask(16, 32)},
		&net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)},
	}
	gw := netip.MustParseAddr
	assert.True(t, hasLocalAddr([]netip.Addr{gw("172.17.0.1")}, iface), "the bridge is ours")
	assert.True(t, hasLocalAddr([]netip.Addr{{}, gw("fe80::1")}, iface))
	assert.False(t, hasLocalAddr([]netip.Addr{gw("172.18.0.1")}, iface), "the bridge is another host's")
	assert.False(t, hasLocalAddr([]netip.Addr{{}}, iface), "no gateway known")
	assert.False(t, hasLocalAddr(nil, iface))
}

func TestBridgeGateway(t *testing.T) {
	assert.Equal(t, netip.MustParseAddr("172.17.0.1"), bridgeGateway(netip.Addr{}, netip.MustParsePrefix("172.17.0.0/16")))
	assert.Equal(t, netip.MustParseAddr("10.1.2.1"), bridgeGateway(netip.Addr{}, netip.MustParsePrefix("10.1.2.77/24")))
	assert.Equal(t, netip.MustParseAddr("172.17.0.254"), bridgeGateway(netip.MustParseAddr("172.17.0.254"), netip.MustParsePrefix("172.17.0.0/16")))
	assert.False(t, bridgeGateway(netip.Addr{}, netip.Prefix{}).IsValid())
}

func TestPublishedHost(t *testing.T) {
	ctx := context.Background()
	fixed := func(h string) hostFunc { return func(context.Context) (string, error) { return h, nil } }
	shares := func(context.Context) bool { return true }
	apart := func(context.Context) bool { return false }
	tests := []struct {
		name     string
		tcHost   string
		shares   func(context.Context) bool
		override string
		want     string
	}{
		{"gateway, engine in our network", "192.0.2.1", shares, "", "127.0.0.1"},
		{"gateway, engine elsewhere", "192.0.2.1", apart, "", "192.0.2.1"},
		{"localhost kept", "localhost", shares, "", "localhost"},
		{"loopback kept", "127.0.0.1", shares, "", "127.0.0.1"},
		{"remote engine by name", "docker.example", apart, "", "docker.example"},
		{"override obeyed", "10.0.0.5", shares, "10.0.0.5", "10.0.0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(hostOverrideEnv, tt.override)
			got, err := publishedHost(ctx, fixed(tt.tcHost), tt.shares)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	boom := errors.New("inspect failed")
	_, err := publishedHost(ctx, func(context.Context) (string, error) { return "", boom }, shares)
	assert.ErrorIs(t, err, boom)
}
