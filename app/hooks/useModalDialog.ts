import { useEffect, useRef } from "react";

/**
 * A native modal `<dialog>` that follows `open`: showModal() keeps focus inside and makes the
 * page behind inert, Escape closes (the dialog's onClose tells the owner), and the browser
 * returns focus to the opener. One place for every dialog and drawer.
 */
export function useModalDialog(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return ref;
}
