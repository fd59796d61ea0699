// Reads a V8 .cpuprofile (what `node --cpu-prof` writes) and says where the time went: self time
// per function and per place (a file of ours, a package, Node's internals, the addon, the
// garbage collector), as shares of the busy time. Idle time is reported apart, never as a share.

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface TimeShare {
  name: string;
  /** Milliseconds of self time. */
  self_ms: number;
  /** Share of the busy (not idle) time, 0..1. */
  share: number;
}

export interface ProfileSummary {
  wall_ms: number;
  busy_ms: number;
  idle_ms: number;
  functions: TimeShare[];
  places: TimeShare[];
}

/** Where a frame's code lives, as one short label. */
export function placeOf(url: string, functionName: string, projectRoot: string): string {
  if (url === '') {
    // V8's pseudo-frames, and functions with no script (builtins, the addon's exports).
    if (functionName.startsWith('(')) return functionName;
    return '(native or builtin)';
  }
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  if (path.startsWith('node:')) return 'node internals';
  const packageAt = path.lastIndexOf('/node_modules/');
  if (packageAt >= 0) {
    const rest = path.slice(packageAt + '/node_modules/'.length).split('/');
    return `package ${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  return path.startsWith(projectRoot) ? path.slice(projectRoot.length).replace(/^\//, '') : path;
}

function ranked(totals: Map<string, number>, busy_ms: number, limit: number): TimeShare[] {
  return [...totals]
    .map(([name, self_ms]) => ({ name, self_ms, share: busy_ms > 0 ? self_ms / busy_ms : 0 }))
    .sort((left, right) => right.self_ms - left.self_ms)
    .slice(0, limit);
}

export function summarizeProfile(profile: CpuProfile, projectRoot: string, limit = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the sample's own duration is the next delta.
  for (let index = 0; index < profile.samples.length; index++) {
    const duration = profile.timeDeltas[index + 1] ?? 0;
    const id = profile.samples[index]!;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + Math.max(0, duration));
  }
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  let idle_ms = 0;
  let sampled_ms = 0;
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)!.callFrame;
    const milliseconds = micros / 1000;
    sampled_ms += milliseconds;
    if (frame.functionName === '(idle)') {
      idle_ms += milliseconds;
      continue;
    }
    const place = placeOf(frame.url, frame.functionName, projectRoot);
    const name = `${frame.functionName || '(anonymous)'} ${place}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + milliseconds);
    places.set(place, (places.get(place) ?? 0) + milliseconds);
  }
  const busy_ms = sampled_ms - idle_ms;
  return {
    wall_ms: (profile.endTime - profile.startTime) / 1000,
    busy_ms,
    idle_ms,
    functions: ranked(functions, busy_ms, limit),
    places: ranked(places, busy_ms, limit),
  };
}

export function formatSummary(title: string, summary: ProfileSummary): string {
  const percent = (share: number): string => `${(share * 100).toFixed(1).padStart(5)}%`;
  const lines = [
    `### ${title}`,
    `JS thread: ${summary.busy_ms.toFixed(0)} ms busy, ${summary.idle_ms.toFixed(0)} ms idle, of ${summary.wall_ms.toFixed(0)} ms profiled`,
    '',
    'self time by place:',
    ...summary.places.map((entry) => `  ${percent(entry.share)}  ${entry.self_ms.toFixed(0).padStart(7)} ms  ${entry.name}`),
    '',
    'self time by function:',
    ...summary.functions.map((entry) => `  ${percent(entry.share)}  ${entry.self_ms.toFixed(0).padStart(7)} ms  ${entry.name}`),
  ];
  return lines.join('\n');
}
