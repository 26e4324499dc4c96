import { CopyButton } from './CopyButton';

/** A value to copy whole (a secret shown once, a command): selectable at one click, with its copy button. */
export function CopyableValue({ value, label, copyLabel, command = false }: { value: string; label: string; copyLabel: string; command?: boolean }) {
  return (
    <div className="secret-row">
      <code className={command ? 'secret secret-command' : 'secret'} aria-label={label}>
        {value}
      </code>
      <CopyButton text={value} label={copyLabel} />
    </div>
  );
}
