/*
 * A stand-in for Apple's MusicKit JS (issue 16), for local development and the browser tests:
 * the page loads it instead of Apple's script when no MUSICKIT_JS_URL is configured in
 * development. Same shape as MusicKit v3: `await MusicKit.configure({ developerToken, app })`
 * gives an instance whose `authorize()` resolves to a Music User Token (here a made-up one,
 * which the development stand-in for Apple's API accepts); `unauthorize()` forgets it.
 * `window.__musicKitStandIn.deny = true` makes the next authorize fail as a person saying no.
 */
(function () {
  var state = { deny: false, configuredWith: null };
  window.__musicKitStandIn = state;
  var instance = null;
  window.MusicKit = {
    version: "stand-in",
    configure: function (options) {
      if (!options || !options.developerToken)
        return Promise.reject(new Error("MusicKit: developerToken is required"));
      state.configuredWith = options.developerToken;
      instance = {
        isAuthorized: false,
        musicUserToken: "",
        authorize: function () {
          if (state.deny) return Promise.reject(new Error("AUTHORIZATION_ERROR: Unauthorized"));
          var bytes = crypto.getRandomValues(new Uint8Array(24));
          var token = "stand-in-mut-" + Array.from(bytes, function (b) {
            return b.toString(16).padStart(2, "0");
          }).join("");
          instance.isAuthorized = true;
          instance.musicUserToken = token;
          return Promise.resolve(token);
        },
        unauthorize: function () {
          instance.isAuthorized = false;
          instance.musicUserToken = "";
          return Promise.resolve();
        },
      };
      return Promise.resolve(instance);
    },
    getInstance: function () {
      return instance;
    },
  };
  document.dispatchEvent(new Event("musickitloaded"));
})();
