import { createContext, useContext } from "react";

/**
 * The response's CSP nonce (workers/security-headers.ts), given to the inline scripts Remix
 * writes. Only the server renders it; in the browser it is "" (a browser hides a nonce from
 * the DOM once the policy has read it, and the scripts have run by then).
 */
const NonceContext = createContext("");
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
