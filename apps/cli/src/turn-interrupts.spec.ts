import { describe, expect, it } from 'vitest';
import { TurnInterrupts } from './turn-interrupts';

describe('TurnInterrupts', () => {
  it('cancels the running turn on the first Ctrl-C and leaves on the second', () => {
    const interrupts = new TurnInterrupts();
    const control = interrupts.beginTurn();

    expect(interrupts.press()).toBe('cancel');
    expect(control.cancel?.aborted).toBe(true);
    expect(control.leave?.aborted).toBe(false);
    expect(interrupts.cancelRequested).toBe(true);

    expect(interrupts.press()).toBe('leave');
    expect(control.leave?.aborted).toBe(true);
  });

  it('leaves at once when no turn runs, and starts over with the next turn', () => {
    const interrupts = new TurnInterrupts();
    expect(interrupts.running).toBe(false);
    expect(interrupts.press()).toBe('leave');

    interrupts.beginTurn();
    interrupts.press();
    interrupts.endTurn();
    expect(interrupts.press()).toBe('leave');
    const next = interrupts.beginTurn();
    expect(interrupts.cancelRequested).toBe(false);
    expect(interrupts.press()).toBe('cancel');
    expect(next.cancel?.aborted).toBe(true);
  });
});
