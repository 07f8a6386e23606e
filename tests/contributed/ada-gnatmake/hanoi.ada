--  The recursive Tower of Hanoi with its number of discs written in. The build writes a copy,
--  program.adb, with n in place of the 4 below, and gnatmake compiles it, leaving its binder and
--  object files beside it in its working folder.
with Ada.Text_IO; use Ada.Text_IO;

procedure Program is
   Discs : constant Natural := 4;

   procedure Move (Count : Natural; From, To, Via : Character) is
   begin
      if Count = 0 then
         return;
      end if;
      Move (Count - 1, From, Via, To);
      Put_Line ("Move disc" & Natural'Image (Count) & " from " & From & " to " & To);
      Move (Count - 1, Via, To, From);
   end Move;

begin
   Move (Discs, 'A', 'C', 'B');
end Program;
