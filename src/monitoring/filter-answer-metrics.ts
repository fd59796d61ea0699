// The kept filter answers on /metrics (docs/api.md §13.2): how many reads a kept set answered
// against how many resolved their filter, and the memory the kept sets hold, so an operator can
// tell whether `limits.filter_answer_cache_mb` earns its memory (src/filter/filter-answers.ts).
import type { FilterAnswers } from '../filter/filter-answers.js';
import type { ServerMetrics } from './metrics.js';

export function registerFilterAnswerMetrics(metrics: ServerMetrics, answers: FilterAnswers): void {
  metrics.registerExtraCollector({
    name: 'quiverdb_filter_answer_reads',
    help: 'Filtered reads since start, by whether a kept filter answer served them (kept) or the filter was resolved (resolved).',
    labelNames: ['outcome'],
    collect: () => [
      { labels: { outcome: 'kept' }, value: answers.reads.kept },
      { labels: { outcome: 'resolved' }, value: answers.reads.resolved },
    ],
  });
  metrics.registerExtraCollector({
    name: 'quiverdb_filter_answers_kept_bytes',
    help: 'Bytes of filter answers kept between reads, for all collections (limits.filter_answer_cache_mb at most).',
    collect: () => [{ value: answers.keptBytes }],
  });
}
