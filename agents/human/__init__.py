"""Tables for people: Hearts in the terminal (``terminal``, ``hearts-play``) and in a browser
(``web``, ``hearts-web``), against any agents of the registry."""
