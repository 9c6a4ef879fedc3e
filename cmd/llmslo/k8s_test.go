package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/llmslo/llmslo/load"
)

// The manifests in deploy/k8s are checked against small structs of the
// Kubernetes fields they use, decoded strictly (an unknown or misspelt
// field fails), rather than against k8s.io/api: that module and
// apimachinery pull about twenty modules into go.mod for one test. What
// the types would not check, this does: the shard flags parse with the
// command's own flag set, every $(VAR) is defined, and the merge job reads
// exactly the files the shards write.

type k8sObject struct {
	APIVersion string                `yaml:"apiVersion"`
	Kind       string                `yaml:"kind"`
	Metadata   struct{ Name string } `yaml:"metadata"`
	Spec       yaml.Node             `yaml:"spec"`
}

type jobSpec struct {
	CompletionMode        string `yaml:"completionMode"`
	Completions           *int   `yaml:"completions"`
	Parallelism           *int   `yaml:"parallelism"`
	BackoffLimit          *int   `yaml:"backoffLimit"`
	ActiveDeadlineSeconds int    `yaml:"activeDeadlineSeconds"`
	Template              struct {
		Spec podSpec `yaml:"spec"`
	} `yaml:"template"`
}

type podSpec struct {
	RestartPolicy   string `yaml:"restartPolicy"`
	SecurityContext struct {
		FSGroup int `yaml:"fsGroup"`
	} `yaml:"securityContext"`
	Containers []container `yaml:"containers"`
	Volumes    []struct {
		Name                  string
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
	} `yaml:"volumes"`
}

type container struct {
	Name, Image   string
	Command, Args []string
	Env           []struct{ Name, Value string }
	Resources     struct {
		Requests map[string]string
	}
	VolumeMounts []struct {
		Name      string
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type pvcSpec struct {
	AccessModes []string `yaml:"accessModes"`
	Resources   struct {
		Requests map[string]string
	}
}

// strict decodes a node into v, refusing fields v does not have.
func strict(n *yaml.Node, v any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}

func readManifest(t *testing.T, file string) map[string]k8sObject {
	t.Helper()
	b, err := os.ReadFile(path.Join("..", "..", "deploy", "k8s", file))
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	objs := map[string]k8sObject{}
	for {
		var o k8sObject
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			return objs
		} else {
			require.NoError(t, err, file)
		}
		objs[o.Kind+"/"+o.Metadata.Name] = o
	}
}

func jobOf(t *testing.T, o k8sObject) (jobSpec, container) {
	t.Helper()
	require.Equal(t, "batch/v1", o.APIVersion)
	var j jobSpec
	require.NoError(t, strict(&o.Spec, &j), o.Metadata.Name)
	require.Len(t, j.Template.Spec.Containers, 1)
	assert.Equal(t, "Never", j.Template.Spec.RestartPolicy, "a Job's pods must not restart in place")
	require.NotNil(t, j.BackoffLimit)
	assert.Zero(t, *j.BackoffLimit, "a retried shard would start late")
	return j, j.Template.Spec.Containers[0]
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand substitutes $(VAR) as the kubelet does, failing on an undefined
// name (which Kubernetes would leave as it is).
func expand(t *testing.T, arg string, env map[string]string) string {
	return varRef.ReplaceAllStringFunc(arg, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		v, ok := env[name]
		require.True(t, ok, "%s: $(%s) is not defined", arg, name)
		return v
	})
}

// claimAt is the claim of the volume mounted at the directory of file.
func claimAt(t *testing.T, pod podSpec, c container, file string) string {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if path.Dir(file) == m.MountPath {
			for _, v := range pod.Volumes {
				if v.Name == m.Name && v.PersistentVolumeClaim != nil {
					return v.PersistentVolumeClaim.ClaimName
				}
			}
		}
	}
	t.Fatalf("%s is on no persistent volume", file)
	return ""
}

func TestKubernetesShardsJobRunsTheShardsAndTheMergeReadsThem(t *testing.T) {
	objs := readManifest(t, "llmslo-shards.yaml")
	var pvc pvcSpec
	pvcObj, ok := objs["PersistentVolumeClaim/llmslo-reports"]
	require.True(t, ok)
	require.NoError(t, strict(&pvcObj.Spec, &pvc))
	assert.Equal(t, []string{"ReadWriteMany"}, pvc.AccessModes, "the shards' pods and the merge's may run on different nodes")

	job, c := jobOf(t, objs["Job/llmslo-shards"])
	pod := job.Template.Spec
	assert.Equal(t, "Indexed", job.CompletionMode)
	require.NotNil(t, job.Completions)
	require.NotNil(t, job.Parallelism)
	assert.Equal(t, *job.Completions, *job.Parallelism, "every shard must run at once")
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	n, err := strconv.Atoi(env["SHARDS"])
	require.NoError(t, err)
	assert.Equal(t, *job.Completions, n, "SHARDS is the completion count")
	assert.Equal(t, "${START_AT}", env["START_AT"], "filled in when applied (envsubst)")
	env["START_AT"] = fmt.Sprint(time.Now().Add(time.Hour).Unix())
	require.Equal(t, []string{"/llmslo"}, c.Command)
	require.Equal(t, "run", c.Args[0])

	var reports []string
	for i := range n {
		env["JOB_COMPLETION_INDEX"] = strconv.Itoa(i)
		args := make([]string, len(c.Args)-1)
		for k, a := range c.Args[1:] {
			args[k] = expand(t, a, env)
		}
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f runFlags
		f.register(fs)
		var sf shardFlags
		sf.register(fs)
		require.NoError(t, fs.Parse(args), "the pod's flags are run's")
		require.Zero(t, fs.NArg())
		cfg, err := f.plan(io.Discard)
		require.NoError(t, err)
		require.NoError(t, sf.apply(&cfg))
		assert.Equal(t, i, cfg.Shard.Index)
		assert.Equal(t, n, cfg.Shard.Count)
		assert.IsType(t, load.URLTarget{}, cfg.Target, "shards measure one shared server")
		assert.Equal(t, "llmslo-reports", claimAt(t, pod, c, f.report))
		reports = append(reports, f.report)
	}

	merge := readManifest(t, "llmslo-merge.yaml")
	mj, mc := jobOf(t, merge["Job/llmslo-merge"])
	assert.Equal(t, c.Image, mc.Image)
	require.Equal(t, []string{"/llmslo"}, mc.Command)
	require.Equal(t, "merge", mc.Args[0])
	var out string
	var inputs []string
	for k := 1; k < len(mc.Args); k++ {
		switch a := mc.Args[k]; {
		case a == "-o":
			k++
			out = mc.Args[k]
		case strings.HasPrefix(a, "-"):
		default:
			inputs = append(inputs, a)
		}
	}
	assert.Equal(t, reports, inputs, "the merge reads every shard's report, once")
	assert.Equal(t, "llmslo-reports", claimAt(t, mj.Template.Spec, mc, out))
}
