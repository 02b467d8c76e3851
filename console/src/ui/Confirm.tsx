import { useEffect, useId, useRef, useState, type ReactNode } from "react";
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
// dialog until the user cancels or tries again. The dialog exists only while
// open, so a table of rows with buttons stays light.
export function ConfirmButton({ label, title, children, confirmLabel, reason, danger, buttonLabel, onConfirm }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    if (open) dialog.current?.showModal();
  }, [open]);
  const show = () => {
    setText("");
    setError(null);
    setOpen(true);
  };
  const closed = () => {
    setOpen(false);
    opener.current?.focus();
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
      <button type="button" ref={opener} className={danger ? "danger" : undefined} onClick={show} aria-label={buttonLabel}>
        {label}
      </button>
      {open && (
        <dialog ref={dialog} aria-labelledby={`${id}-t`} onClose={closed}>
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
      )}
    </>
  );
}
