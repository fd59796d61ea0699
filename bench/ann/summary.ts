// bench:ann's headline: QuiverDB's async search (the path the server uses) against the strongest
// peer at recall@10 >= 0.95 and >= 0.99, with the sync and batch calls as further rows. Pure
// functions over measured sweeps (tested in test/bench-ann-peers.test.ts).

export const RECALL_LEVELS = [0.95, 0.99] as const;

export interface SweepPoint {
  ef: number;
  recall: number;
  queriesPerSecond: number;
}

export interface SweepRow {
  name: string;
  points: SweepPoint[];
}

/** Best QPS among sweep points reaching `level` recall, or undefined when none does. */
export function bestAt(points: SweepPoint[], level: number): SweepPoint | undefined {
  return points.filter((point) => point.recall >= level).sort((a, b) => b.queriesPerSecond - a.queriesPerSecond)[0];
}

export interface Comparison {
  level: number;
  mine: SweepPoint | undefined;
  /** The peer with the highest QPS at this recall level (only peers that reach it compete). */
  strongest: { name: string; point: SweepPoint } | undefined;
  /** mine / strongest QPS; undefined when either side never reaches the level. */
  ratio: number | undefined;
}

export function compareWithStrongest(mine: SweepRow, peers: SweepRow[], level: number): Comparison {
  let strongest: Comparison['strongest'];
  for (const peer of peers) {
    const point = bestAt(peer.points, level);
    if (point && (!strongest || point.queriesPerSecond > strongest.point.queriesPerSecond)) strongest = { name: peer.name, point };
  }
  const own = bestAt(mine.points, level);
  const ratio = own && strongest && strongest.point.queriesPerSecond > 0 ? own.queriesPerSecond / strongest.point.queriesPerSecond : undefined;
  return { level, mine: own, strongest, ratio };
}

function cell(comparison: Comparison, bold: boolean): string {
  if (!comparison.mine) return 'not reached';
  if (!comparison.strongest) return 'no peer reaches it';
  const ratio = comparison.ratio!.toFixed(2);
  const mine = Math.round(comparison.mine.queriesPerSecond);
  const theirs = Math.round(comparison.strongest.point.queriesPerSecond);
  return `${bold ? `**${ratio}**` : ratio} (${mine} vs ${comparison.strongest.name} ${theirs})`;
}

/**
 * The headline table of one dataset: one row per QuiverDB call mode (the first, async, in bold),
 * one column per recall level, each cell `ratio (mine vs strongest-peer QPS)`.
 */
export function headlineLines(quiverRows: SweepRow[], peers: SweepRow[]): string[] {
  const lines = [
    `| QuiverDB ÷ strongest peer, QPS at equal recall | ${RECALL_LEVELS.map((level) => `recall@10 >= ${level}`).join(' | ')} |`,
    `|---|${RECALL_LEVELS.map(() => '---').join('|')}|`,
  ];
  quiverRows.forEach((row, position) => {
    const cells = RECALL_LEVELS.map((level) => cell(compareWithStrongest(row, peers, level), position === 0));
    lines.push(`| ${position === 0 ? `**${row.name}** (the server's path)` : row.name} | ${cells.join(' | ')} |`);
  });
  return lines;
}

/** All datasets in one table, as the issue states its goal: ratio only, per dataset and level. */
export function overallLines(results: { dataset: string; quiverRows: SweepRow[]; peers: SweepRow[] }[]): string[] {
  if (results.length === 0) return [];
  const columns = results.flatMap((result) => RECALL_LEVELS.map((level) => `${result.dataset} @${level}`));
  const lines = [`| QuiverDB ÷ strongest peer | ${columns.join(' | ')} |`, `|---|${columns.map(() => '---').join('|')}|`];
  const modes = results[0]!.quiverRows.map((row) => row.name);
  modes.forEach((mode, position) => {
    const cells = results.flatMap((result) =>
      RECALL_LEVELS.map((level) => {
        const comparison = compareWithStrongest(result.quiverRows[position]!, result.peers, level);
        if (comparison.ratio === undefined) return 'n/a';
        const ratio = comparison.ratio.toFixed(2);
        return position === 0 ? `**${ratio}**` : ratio;
      }),
    );
    lines.push(`| ${mode} | ${cells.join(' | ')} |`);
  });
  return lines;
}
