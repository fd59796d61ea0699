// The part of autocannon's API the HTTP benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Request {
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: Request[];
    /** Called with each client as it is made (bench/http/staggered-clients.ts). */
    setupClient?: (client: { setRequests(requests: Request[]): void }) => void;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    non2xx: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
