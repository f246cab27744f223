"""The web console at /console: static HTML/JS that uses the public API with the user's key."""
