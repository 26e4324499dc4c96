import { describe, expect, test } from 'vitest';
import { rowAfterKey } from './shortcuts';

describe('rowAfterKey', () => {
  test('j moves down and k up, stopping at either end', () => {
    expect(rowAfterKey('j', 0, 3)).toBe(1);
    expect(rowAfterKey('j', 2, 3)).toBe(2);
    expect(rowAfterKey('k', 2, 3)).toBe(1);
    expect(rowAfterKey('k', 0, 3)).toBe(0);
  });

  test('with no row focused, j starts at the first row and k at the last', () => {
    expect(rowAfterKey('j', -1, 3)).toBe(0);
    expect(rowAfterKey('k', -1, 3)).toBe(2);
  });

  test('other keys and empty lists move nothing', () => {
    expect(rowAfterKey('J', 0, 3)).toBeUndefined();
    expect(rowAfterKey('Enter', 0, 3)).toBeUndefined();
    expect(rowAfterKey('j', -1, 0)).toBeUndefined();
  });
});
