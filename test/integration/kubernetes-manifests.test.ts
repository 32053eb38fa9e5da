// deploy/kubernetes: the manifests agree with the gateway config they mount (probe and scrape ports = the
// admin port, preStop = drainDelay, grace period covers the whole drain, every path the config names is a
// mount), hold what a cluster operator expects (2+ replicas, read-only root, non-root, requests and
// limits, PDB, HPA on CPU, Secrets as files), and pass kubeconform against the Kubernetes API schemas
// (deploy/kubernetes/validate.sh; tools from .ci/deps.d/kubernetes.sh), which also rejects a broken one.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { runCli } from '../helpers/cli.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const DIR = join(ROOT, 'deploy/kubernetes');
const TOOLS = process.env.FICTA_K8S_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'ficta/kubernetes-tools');

const load = (file: string): any => parseYaml(readFileSync(join(DIR, file), 'utf8'));
const kustomization = load('kustomization.yaml');
const resources: any[] = (kustomization.resources as string[]).map(load);
const byKind = (kind: string): any => resources.find((r) => r.kind === kind);
const deployment = byKind('Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const config = parseToml(byKind('ConfigMap').data['gateway.toml']) as any;
/** A config duration ("5s", "1m") in seconds. */
const seconds = (d: string): number => {
  const m = /^(\d+)(s|m|h)$/.exec(d);
  if (m === null) throw new Error(`kubernetes-manifests: unexpected duration ${d}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
};

describe('deploy/kubernetes manifests', () => {
  it('the config is a gateway config: admin listener on all interfaces, a dir source', () => {
    expect(Object.keys(config).sort()).toEqual(['gateway', 'log', 'sources', 'upstreams']);
    expect(config.gateway).toMatchObject({ adminHost: '0.0.0.0', adminPort: 9787 });
    expect(config.sources.every((s: any) => s.type === 'dir')).toBe(true);
    expect(container.args).toEqual(['gateway', '--config', '/etc/ficta/config/gateway.toml']);
  });

  it('probes and the scrape annotation use the admin port; the Service exposes only the public one', () => {
    const admin = container.ports.find((p: any) => p.name === 'admin');
    const http = container.ports.find((p: any) => p.name === 'http');
    expect(admin.containerPort).toBe(config.gateway.adminPort);
    expect(http.containerPort).toBe(8787);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'admin' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'admin' });
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(config.gateway.adminPort), 'prometheus.io/path': '/metrics' });
    expect(byKind('Service').spec.ports.map((p: any) => p.targetPort)).toEqual(['http']);
  });

  it('preStop matches drainDelay, and the grace period covers preStop + drainDelay + drainTimeout', () => {
    const preStop = container.lifecycle.preStop.exec.command;
    expect(preStop[0]).toBe('sleep');
    const sleep = Number(preStop[1]);
    expect(sleep).toBe(seconds(config.gateway.drainDelay));
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(seconds(config.gateway.drainTimeout));
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(sleep + seconds(config.gateway.drainDelay) + seconds(config.gateway.drainTimeout));
  });

  it('2+ replicas, non-root, read-only root, no privilege, requests and limits', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    for (const kind of ['requests', 'limits']) expect(Object.keys(container.resources[kind]).sort()).toEqual(['cpu', 'memory']);
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it('every file the config names is mounted from a Secret directory (no subPath: updates must arrive)', () => {
    const mounts = new Map<string, any>(container.volumeMounts.map((m: any) => [m.mountPath, m]));
    const volumes = new Map<string, any>(pod.volumes.map((v: any) => [v.name, v]));
    const secretDirOf = (path: string): string => {
      const mount = [...mounts.values()].find((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
      expect(mount, path).toBeDefined();
      expect(mount.subPath).toBeUndefined();
      expect(mount.readOnly).toBe(true);
      return volumes.get(mount.name).secret?.secretName;
    };
    expect(secretDirOf(config.gateway.keyFile)).toBe('ficta-gateway-key');
    expect(secretDirOf(config.gateway.tokensFile)).toBe('ficta-gateway-tokens');
    for (const s of config.sources) expect(secretDirOf(s.path)).toMatch(/^ficta-source-/);
    expect(mounts.get('/etc/ficta/config')?.name).toBe('config');
    expect(volumes.get('config').configMap.name).toBe(byKind('ConfigMap').metadata.name);
    // What the process writes: FICTA_HOME and /tmp, both emptyDir.
    for (const path of ['/var/lib/ficta', '/tmp']) expect(volumes.get(mounts.get(path).name).emptyDir).toBeDefined();
    // The example Secrets carry the names the Deployment mounts.
    const examples = parseAllDocuments(readFileSync(join(DIR, 'secrets/example.yaml'), 'utf8')).map((d) => d.toJS().metadata.name);
    expect(examples.sort()).toEqual([...volumes.values()].filter((v) => v.secret !== undefined).map((v) => v.secret.secretName).sort());
  });

  it('a PodDisruptionBudget and a CPU HorizontalPodAutoscaler that never goes below 2', () => {
    const selector = deployment.spec.selector.matchLabels;
    expect(byKind('PodDisruptionBudget').spec).toMatchObject({ maxUnavailable: 1, selector: { matchLabels: selector } });
    const hpa = byKind('HorizontalPodAutoscaler');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
  });

  it("`ficta gateway check` accepts the ConfigMap's config with the key, tokens and source it mounts", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ficta-k8s-check-'));
    try {
      const env = { HOME: dir, FICTA_HOME: join(dir, 'home') };
      expect((await runCli(['gateway', 'init', join(dir, 'gw')], { env })).code).toBe(0);
      const source = join(dir, 'platform');
      mkdirSync(source);
      writeFileSync(join(source, 'DEPLOY_TOKEN'), 'k8s-check-value-5e0c2a\n');
      // The mount paths of the Deployment, moved under the test's directory; nothing else changed.
      const toml = byKind('ConfigMap')
        .data['gateway.toml'].replaceAll('/etc/ficta/key/', `${join(dir, 'gw')}/`)
        .replaceAll('/etc/ficta/tokens/', `${join(dir, 'gw')}/`)
        .replaceAll('/etc/ficta/secrets/platform', source);
      writeFileSync(join(dir, 'gateway.toml'), toml);
      const add = await runCli(['gateway', 'token', 'add', 'alice', '--group', 'platform', '--config', join(dir, 'gateway.toml')], { env });
      expect(add.code, add.stderr).toBe(0);
      const check = await runCli(['gateway', 'check', '--config', join(dir, 'gateway.toml')], { env });
      expect(check.code, check.stderr).toBe(0);
      expect(check.stdout).toMatch(/ok: 1 tenant\(s\), 1 source\(s\) with 1 value\(s\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // The tools and schemas are built by .ci/deps.d/kubernetes.sh (which .ci/run runs first).
  describe.runIf(existsSync(join(TOOLS, '.stamp')))('kubeconform against the Kubernetes API schemas', () => {
    it('validate.sh: the rendered kustomization and the Secret examples are valid', async () => {
      const { stdout } = await run('bash', [join(DIR, 'validate.sh')], { env: { ...process.env, FICTA_K8S_TOOLS: TOOLS } });
      expect(stdout).toMatch(/Summary: 10 resources found in 2 files - Valid: 10, Invalid: 0, Errors: 0, Skipped: 0/);
    }, 60_000);

    it('validate.sh fails on a misspelt field and on a wrong type', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ficta-k8s-'));
      try {
        const text = readFileSync(join(DIR, 'deployment.yaml'), 'utf8');
        writeFileSync(join(dir, 'typo.yaml'), text.replace('terminationGracePeriodSeconds:', 'terminationGracePeriod:'));
        writeFileSync(join(dir, 'type.yaml'), text.replace('replicas: 2', 'replicas: two'));
        const failed = await run('bash', [join(DIR, 'validate.sh'), join(dir, 'typo.yaml'), join(dir, 'type.yaml')], { env: { ...process.env, FICTA_K8S_TOOLS: TOOLS } }).then(
          () => undefined,
          (e: { code: number; stdout: string }) => e,
        );
        expect(failed?.code).toBe(1);
        expect(failed?.stdout).toMatch(/additional properties 'terminationGracePeriod' not allowed/);
        expect(failed?.stdout).toMatch(/\/spec\/replicas': got string, want integer/);
        expect(failed?.stdout).toMatch(/Invalid: 2/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  });
});
