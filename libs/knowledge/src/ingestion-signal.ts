import { Injectable } from '@nestjs/common';

/** Lets request handlers wake this replica's ingestion worker at once instead of at its next poll. */
@Injectable()
export class IngestionSignal {
  private listener: (() => void) | null = null;

  onNudge(listener: () => void): void {
    this.listener = listener;
  }

  nudge(): void {
    this.listener?.();
  }
}
