"""Bridges to other programs: a bot program in any language as an agent (``program``), this
project's agents served over the bot protocol (``protocol_bot``, ``hearts-bot``) and as OpenSpiel
bots (``openspiel_bots``)."""
