// Types of guard.mjs, the thin client of `wrapcheck guard` (docs/guard.md).

export interface DecisionJSON {
  run: string;
  id?: string;
  decision: "allow" | "block";
  reason?: string;
  kind?: "diverges" | "violated" | "invalid" | "limit" | "refused" | "internal" | "client";
  property?: string;
  step: number;
  allowed?: string[];
  terminal?: boolean;
  ended?: "terminal" | "deadlock" | "closed";
  trace?: Array<{ step: number; action: string | null; state: Record<string, unknown>; asked?: Record<string, unknown> }>;
  mismatch?: string[];
}

export declare class Decision {
  readonly raw: DecisionJSON;
  readonly allowed: boolean;
  readonly reason: string;
  readonly kind: string;
  readonly property: string;
  readonly step: number;
  readonly allowedNext: string[];
  readonly ended: string;
  readonly trace: DecisionJSON["trace"];
  static blocked(reason: string): Decision;
}

export declare class Guard {
  static http(url: string, token: string, timeoutMs?: number): Guard;
  static unix(path: string, token: string, timeoutMs?: number): Guard;
  static stdio(argv: string[]): Guard;
  request(body: Record<string, unknown>): Promise<Decision>;
  open(run: string, initialState?: Record<string, unknown>): Promise<Decision>;
  step(run: string, action: string, opts?: { asked?: Record<string, unknown>; state?: Record<string, unknown>; id?: string; traceparent?: string }): Promise<Decision>;
  close(run: string): Promise<Decision>;
  shutdown(): Promise<void>;
}
