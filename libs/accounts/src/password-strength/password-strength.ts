import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '@app/common';

export interface StrengthRequest {
  id: number;
  password: string;
  /** words the password must not lean on (the user's e-mail, name and their parts) */
  inputs: string[];
}

export type StrengthReply =
  | { id: number; common: boolean; score: number; warning: string | null; suggestions: string[]; error?: undefined }
  | { id: number; error: string };

/** What zxcvbn says of a password. */
export interface Strength {
  /** on the list of common and breached passwords (compared case-insensitively) */
  common: boolean;
  /** 0–4 (0 when common) */
  score: number;
  warning: string | null;
  suggestions: string[];
}

/** A worker no check has used for this long is stopped (its dictionaries go with it). */
const IDLE_MS = 30_000;

/**
 * zxcvbn's password-strength estimate, computed in a worker thread started on the first check and
 * stopped after IDLE_MS without one. Passwords are set rarely (sign-up, change, operator-created
 * users, start-up), and zxcvbn's dictionaries are ≈ 25 MB of small objects: kept in the main heap,
 * every full collection marked them again (≈ 45 ms of a ≈ 180 ms full mark on an idle gateway),
 * and those collections stall requests. A check also stays off the event loop. The first check
 * after an idle period pays the worker's start (≈ 0.3–0.5 s).
 */
@Injectable()
export class PasswordStrength implements OnApplicationShutdown {
  /** how long the worker stays after its last check (ms) */
  idleMs = IDLE_MS;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (s: Strength) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;

  /** Whether a worker is running now. */
  get running(): boolean {
    return this.worker !== null;
  }

  estimate(password: string, inputs: string[]): Promise<Strength> {
    const worker = this.worker ?? this.start();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const id = this.nextId++;
    return new Promise<Strength>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, password, inputs } satisfies StrengthRequest);
    });
  }

  /** Stops the worker (shutdown); checks waiting for it fail. */
  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    this.retire(new Error('The password-strength check was stopped.'));
    await worker?.terminate().catch(() => undefined);
  }

  private start(): Worker {
    const { entry, options } = workerEntry(__dirname, 'password-strength.worker');
    const worker = new Worker(entry, {
      ...options,
      resourceLimits: { maxOldGenerationSizeMb: 192, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    worker.on('message', (reply: StrengthReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      if (reply.error !== undefined) job.reject(new Error(`password-strength check failed: ${reply.error}`));
      else
        job.resolve({
          common: reply.common,
          score: reply.score,
          warning: reply.warning,
          suggestions: reply.suggestions,
        });
      if (this.pending.size === 0 && this.worker === worker) this.idle(worker);
    });
    worker.on('error', (err) => {
      if (this.worker === worker) this.retire(new Error(`password-strength check failed: ${err.message}`));
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.retire(new Error(`password-strength worker exited (code ${code})`));
    });
    this.worker = worker;
    return worker;
  }

  /** No check waits: the worker no longer keeps the process alive, and stops after idleMs. */
  private idle(worker: Worker): void {
    worker.unref();
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || this.pending.size > 0) return;
      this.worker = null;
      this.idleTimer = null;
      void worker.terminate().catch(() => undefined);
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** The worker is gone: checks waiting for it fail with `err`, the next check starts a new one. */
  private retire(err: Error): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.worker = null;
    const jobs = [...this.pending.values()];
    this.pending.clear();
    for (const job of jobs) job.reject(err);
  }
}
