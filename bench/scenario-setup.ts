/** What a benchmark scenario brings beyond a path: its service settings, its requests, its checks (bench/scenarios.ts lists them). */
export interface ScenarioSetup {
  env: Record<string, string>;
  /** The requests of the scenario, spread over the connections (both servers get the same ones). */
  requests?: ScenarioRequest[];
  describe: string;
  /** A sanity check of one answer before the load starts. */
  verify?(url: string): Promise<void>;
  close(): Promise<void>;
}

export interface ScenarioRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** autocannon's: the request as sent, made anew each time (a body that never repeats). */
  setupRequest?: (request: ScenarioRequest) => ScenarioRequest;
}
