import { useId, useRef, useState, type ReactNode } from "react";
import { ErrorBox } from "./ErrorBox";

type Props = {
  label: string;
  title: string;
  children?: ReactNode;
  confirmLabel?: string;
  reason?: "optional" | "required";
  danger?: boolean;
  buttonLabel?: string;
  onConfirm: (reason: string) => Promise<unknown>;
};

// ConfirmButton asks before it acts, in a modal dialog (the browser's own
// <dialog>: focus moves in, Escape cancels); the API's error stays in the
// dialog until the user cancels or tries again.
export function ConfirmButton({ label, title, children, confirmLabel, reason, danger, buttonLabel, onConfirm }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const open = () => {
    setText("");
    setError(null);
    dialog.current?.showModal();
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm(text.trim());
      dialog.current?.close();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className={danger ? "danger" : undefined} onClick={open} aria-label={buttonLabel}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-t`}>
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            void confirm();
          }}
        >
          <h2 id={`${id}-t`}>{title}</h2>
          {children}
          {reason && (
            <p>
              <label htmlFor={`${id}-r`}>Reason{reason === "optional" ? " (optional)" : ""}</label>
              <textarea id={`${id}-r`} value={text} required={reason === "required"} onChange={(e) => setText(e.target.value)} rows={2} />
            </p>
          )}
          {error != null && <ErrorBox error={error} />}
          <div className="actions">
            <button type="submit" className={danger ? "danger" : "primary"} disabled={busy}>
              {confirmLabel ?? label}
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
