-- The test writes the marker's path in place of MARKER.
COPY (SELECT 'ran') TO PROGRAM 'touch MARKER';
