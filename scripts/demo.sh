#!/usr/bin/env bash
echo "The demo arrives with the runtime; for now, run npm test."
